// trainbench worker: one side of an A/B session (`trainbench ab`), or with --isolate the process
// of one scenario of `run --isolate` (isolated_table.hpp). It loads a matrix, keeps its scenarios
// alive, and measures one segment whenever the parent asks, so that the parent can interleave
// two builds, or many workers, round by round. Not meant to be run by hand.
//
// Protocol, one JSON object per line. Replies go to the process's original stdout; anything
// else that would print there (LibTorch warnings) is sent to stderr instead.
//   worker -> {"hello": 1, "scenarios": [{"id", "key"}...], "digest", "rounds", "max_rounds",
//              "seed"}               or {"error": "message", "exit": 2} and exit 2
//   parent -> {"segment": I, "round": R}  worker -> {"active": bool, "converged": bool}
//             (with "snapshot": true the reply also has "snapshot": scenario I's result so far)
//   parent -> {"finish_one": I}           worker -> {"result": scenario I's final result}
//                                         (with --isolate it then exits 0)
//   parent -> {"save": true}              worker -> {"saved": true}  (results.json so far)
//   parent -> {"finish": true}            worker -> {"results": "DIR/results.json"} and exits
//                                         (0, or 1 when a scenario failed, oom or diverged)
//   end of input (the parent is gone)     the worker exits 3
// With --isolate, "save" and "finish" are refused ({"error": ...}): results.json is the parent's.
#pragma once
#include <trainbench/cli/command.hpp>

namespace tb::cli {

// trainbench worker MATRIX --out DIR --ab-session ID --ab-side old|new [--set PATH=JSON]...
//                   [--memory-budget SIZE]
// trainbench worker MATRIX --isolate [--out DIR] [--run-start-ns N] [--set PATH=JSON]...
//                   [--memory-budget SIZE] [--profile|--no-profile]
// Hidden from `trainbench --help`. A bad command line is answered on the protocol channel too.
const Command& worker_command();

}  // namespace tb::cli
