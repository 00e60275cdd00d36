// trainbench: benchmark and profile PyTorch training loops (LibTorch). See README.md.
#include <iostream>
#include <string>
#include <vector>

#include "harness/core/commands.hpp"
#include "harness/core/error.hpp"
#include "harness/torch/run_command.hpp"
#include "harness/torch/worker_command.hpp"
#include "trainbench/build_config.hpp"

namespace {

constexpr const char* kUsage = R"(usage: trainbench <command> [options]

commands:
  run [MATRIX] [--out DIR] [--format md,csv,html,gbench|none] [--set PATH=JSON]...
      [--profile|--no-profile] [--memory-budget SIZE] [--history DB|--no-history]
      [--isolate|--no-isolate]
        run a scenario matrix (default scenarios/quick.json); results in DIR (default
        results/<run-id>/): results.json, reports, traces. Ctrl-C (or SIGTERM) stops it
        cleanly between steps and saves what finished; a second one stops it at once.
        --isolate: each scenario in its own process, so a crash (segfault, abort) is that
        scenario's status "crashed"
  run --resume DIR [MATRIX] [--force] [options]
        finish an interrupted run: measure again the scenarios of DIR/results.json that are
        not ok or skipped, merged into the same results (refused when the matrix or the
        hardware changed, unless --force)
  list MATRIX [--set PATH=JSON]...     print the expanded scenarios without running them
  report RESULTS [--format LIST] [--out DIR]
                                       re-render reports from a saved results.json
  compare OLD NEW [--fail-on-regression PCT] [--allow-env-mismatch] [--aa] [--noise FILE]
  compare --against last|RUN_ID|GIT_REV [NEW]
                                       compare two runs (exit 1 on a regression)
  ab MATRIX --old BIN --new BIN [--fail-on-regression PCT] [--new-set PATH=JSON]...
                                       two builds measured side by side, round by round:
                                       a paired comparison that the machine's drift between
                                       runs cannot fake (the gate to use on a shared machine)
  history [--db PATH] [--scenario ID]  runs recorded in results/history.sqlite, or one trend
  capacity MATRIX [--memory-budget SIZE] [--out DIR]
                                       largest and fastest batch per model and precision
  models                               registered models and datasets

exit codes: 0 ok; 1 a scenario failed, ran out of memory, diverged or crashed (run), or a regression
            or a broken scenario (compare); 2 bad input; 3 compare refused (different hardware);
            4 compare/ab refused (contended measurements); 5 an output (results, report, trace,
            history) could not be written: full disk, unwritable folder (the previous file is kept);
            130/143 run interrupted by SIGINT/SIGTERM (finish it with run --resume DIR)
)";

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    std::cout << kUsage;
    return all.empty() ? 2 : 0;
  }
  if (all[0] == "--version") {
    std::cout << "trainbench " << TRAINBENCH_VERSION << "\n";
    return 0;
  }
  const std::string command = all[0];
  const std::vector<std::string> args(all.begin() + 1, all.end());
  try {
    if (command == "run") return tb::cmd_run(args, std::cout, std::cerr);
    if (command == "list") return tb::cmd_list(args, std::cout, std::cerr);
    if (command == "report") return tb::cmd_report(args, std::cout, std::cerr);
    if (command == "compare") return tb::cmd_compare(args, std::cout, std::cerr);
    if (command == "ab") return tb::cmd_ab(args, std::cout, std::cerr);
    if (command == "worker") return tb::cmd_worker(args, std::cout, std::cerr);
    if (command == "history") return tb::cmd_history(args, std::cout, std::cerr);
    if (command == "capacity") return tb::cmd_capacity(args, std::cout, std::cerr);
    if (command == "models") return tb::cmd_models(args, std::cout, std::cerr);
  } catch (const tb::OutputError& e) {
    std::cerr << "trainbench: " << e.what() << "\n";  // "cannot write <path>: <reason>"
    return tb::kExitOutputError;
  } catch (const std::exception& e) {
    std::cerr << "trainbench " << command << ": " << e.what() << "\n";
    return 2;
  }
  std::cerr << "trainbench: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
