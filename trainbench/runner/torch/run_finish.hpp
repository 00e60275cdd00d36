// What happens after the last scenario of a run: comparisons and verdicts, reports, the history
// database, and the console table.
#pragma once
#include <trainbench/results/results.hpp>
#include <trainbench/runner/torch/runner.hpp>

namespace tb {

// Annotates `run` (speedups, loss parity, summary), saves results.json, writes the requested
// reports, records the run in the history database and prints the console table. A failure in
// one of these is reported on the progress stream and never loses results.json. When an artefact
// could not be written the others are still tried, then the first OutputError is rethrown.
void finish_run(RunResult& run, const RunOptions& options);

}  // namespace tb
