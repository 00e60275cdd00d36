// trainbench worker: one side of an A/B session (`trainbench ab`), or with --isolate the process
// of one scenario of `run --isolate` (isolated_table.hpp). It loads a matrix, keeps its scenarios
// alive, and measures one segment whenever the parent asks, so that the parent can interleave
// two builds, or many workers, round by round. Not meant to be run by hand.
//
// It speaks the worker protocol (trainbench/runner/worker_protocol.hpp, docs/worker-protocol.md),
// one JSON object per line. Replies go to the process's original stdout; anything else that would
// print there (LibTorch warnings) is sent to stderr instead. With --isolate it exits 0 after its
// one scenario's finish_one, and refuses save and finish (results.json is the parent's).
// Exit codes: 0 ok, 1 a scenario failed (failed, oom, diverged, crashed), 2 bad input (after a
// refusal on the protocol channel), 3 end of input before a finish (the parent is gone).
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
