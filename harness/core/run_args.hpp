// The command line of run, list and capacity. One parser, so that `run --resume` reads a run's
// recorded command line exactly as `run` read it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

struct CommonArgs {
  std::string matrix;
  std::string out_dir;
  std::string formats = "md,csv,html,gbench";
  std::vector<std::string> sets;
  std::optional<bool> profile;
  std::int64_t memory_budget = 0;
  std::string history = "results/history.sqlite";
  std::optional<bool> isolate;  // --isolate / --no-isolate; else the matrix's "isolate"
};

// [MATRIX] [--set PATH=JSON]... and, when allow_run_flags, --out, --format, --profile,
// --no-profile, --memory-budget, --history, --no-history, --isolate, --no-isolate. InputError
// naming the option.
CommonArgs parse_common(const std::vector<std::string>& args, bool allow_run_flags);

// scenarios/quick.json, from the working folder when there, else from the source tree.
std::string default_matrix();

// --resume DIR and --force, taken out of `args` (only `run` knows them).
struct ResumeArgs {
  std::string dir;  // "" : a new run
  bool force = false;
};
ResumeArgs take_resume_args(std::vector<std::string>& args);

// The arguments a resume runs with: the run's own (`command_line`, as recorded in its
// environment: "trainbench", "run", ...) without --out (the results stay where they are), then
// `given`, which win: the last value of an option counts and --set values apply in order. A
// matrix in `given` replaces the run's.
std::vector<std::string> resume_arguments(const nlohmann::json& command_line,
                                          const std::vector<std::string>& given);

}  // namespace tb
