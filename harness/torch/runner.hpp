// Runs a scenario matrix: each scenario is set up, warmed up, timed under the stopping rule and,
// when asked, profiled in a separate pass. One scenario's failure (an error, an out-of-memory, a
// mode the device cannot run) is recorded as that scenario's status and the matrix goes on;
// results.json is rewritten after every scenario so nothing measured is lost.
#pragma once
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/core/matrix.hpp"
#include "harness/core/results.hpp"
#include "harness/core/run_id.hpp"  // make_run_id

namespace tb {

struct RunOptions {
  std::string run_id;                  // "" : derived from the time and the matrix name
  std::string out_dir;                 // results directory (results.json, reports, traces)
  std::vector<std::string> formats;    // reports written at the end (empty: none)
  std::ostream* progress = nullptr;    // progress lines and the console table (nullptr: quiet)
  std::int64_t memory_budget_bytes = 0;  // CPU: a scenario whose peak RSS exceeds it is "oom"
  std::optional<bool> profile;         // --profile / --no-profile override
  std::string history_db;              // "" : do not record
  std::vector<std::string> command_line;
  // --isolate: every scenario runs in its own `trainbench worker` process (isolated_table.hpp),
  // which reads the matrix file again with the same overrides and runs `worker_program` (""
  // : this executable).
  bool isolate = false;
  std::vector<std::string> set_overrides;
  std::string worker_program;
  // Test-only: called before every step of every scenario (outside the timed region), e.g. to
  // inject an out-of-memory error. In this process only: with `isolate` the workers run the steps.
  std::function<void(const ScenarioParams&, int step)> test_hook;
};

// Everything a run needs before it starts: catalog of models/datasets and device availability.
MatrixParseOptions default_parse_options();
bool cuda_available();

// Runs every scenario of `spec`; never throws for a scenario's failure.
RunResult run_matrix(const MatrixSpec& spec, const RunOptions& options);

// Runs one scenario (used by run_matrix and the capacity search); throws on failure.
ScenarioResult run_scenario(const ScenarioParams& params, const RunOptions& options,
                            const std::string& trace_stem = "");

}  // namespace tb
