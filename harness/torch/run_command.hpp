// The sub-commands that need LibTorch: run, list, capacity, models.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace tb {

// trainbench run [MATRIX] [--out DIR] [--format LIST|none] [--set PATH=JSON]... [--profile]
//                [--no-profile] [--memory-budget SIZE] [--history DB] [--no-history]
//                [--isolate] [--no-isolate]
// trainbench run --resume DIR [MATRIX] [--force] [options]: finishes the run saved in DIR with
//                the run's own options (those given now win).
int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// trainbench list MATRIX [--set PATH=JSON]...
int cmd_list(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// trainbench capacity MATRIX [--memory-budget SIZE] [--out DIR] [--set PATH=JSON]...
int cmd_capacity(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// trainbench models: the registered models and datasets.
int cmd_models(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Exit codes of run/list/capacity.
inline constexpr int kExitOk = 0;
inline constexpr int kExitScenarioFailed = 1;  // the run finished; a scenario failed, ran out of
                                               // memory, diverged or crashed (capacity: OOM
                                               // expected)
inline constexpr int kExitBadInput = 2;        // bad matrix or command line; nothing ran
// kExitOutputError (5, harness/core/error.hpp): --out or an artefact could not be written.
// 128 + signal (130 SIGINT, 143 SIGTERM; interrupt.hpp): run stopped early, what finished saved.

}  // namespace tb
