// What `run --resume` runs with: the run's recorded command line merged with the one given now.
// The option table itself is the CLI's (trainbench/cli/torch/run_command.cpp); this file only needs to know
// which options take a value.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

// scenarios/quick.json, from the working folder when there, else from the source tree.
std::string default_matrix();

// Whether a command-line option ("--out") is followed by a value.
using TakesValue = std::function<bool(const std::string& option)>;

// The arguments a resume runs with: the run's own (`command_line`, as recorded in its
// environment: "trainbench", "run", ...) without --out, --resume and --force (the results stay
// where they are) and without --quiet and --verbose (the display is chosen anew), then `given`, which win: the last value of an option counts and --set values
// apply in order. A matrix in `given` replaces the run's. Options may be `--x v` or `--x=v`.
std::vector<std::string> resume_arguments(const nlohmann::json& command_line, const std::vector<std::string>& given,
                                          const TakesValue& takes_value);

}  // namespace tb
