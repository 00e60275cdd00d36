// Runs a scenario matrix: each scenario is set up, warmed up, timed under the stopping rule and,
// when asked, profiled in a separate pass. One scenario's failure (an error, an out-of-memory, a
// mode the device cannot run) is recorded as that scenario's status and the matrix goes on;
// results.json is rewritten after every scenario so nothing measured is lost, and an interrupted
// run can be finished later (resume_matrix).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/runner/code_under_test.hpp>
#include <trainbench/runner/run_id.hpp>  // make_run_id
#include <trainbench/runner/run_listener.hpp>
#include <trainbench/runner/shard.hpp>

namespace tb {

namespace dist {
class World;
}

struct RunOptions {
  std::string run_id;                    // "" : derived from the time and the matrix name
  std::string out_dir;                   // results directory (results.json, reports, traces)
  std::vector<std::string> formats;      // reports written at the end (empty: none)
  RunListener* listener = nullptr;       // progress, warnings and the end of the run (nullptr: quiet)
  std::int64_t memory_budget_bytes = 0;  // CPU: a scenario whose peak RSS exceeds it is "oom"
  std::optional<bool> profile;           // --profile / --no-profile override
  std::string history_db;                // "" : do not record
  std::vector<std::string> command_line;
  // --isolate: every scenario runs in its own `trainbench worker` process (isolated_table.hpp),
  // which reads the matrix file again with the same overrides and runs `worker_program` (""
  // : this executable).
  bool isolate = false;
  // A worker silent this long (no reply to a segment or a finish) is killed as hung: "crashed".
  double hang_timeout_s = 600;
  std::vector<std::string> set_overrides;
  std::string worker_program;
  // A data-parallel run: this process's place among the ranks (nullptr: one process). Rank 0
  // runs the schedule and writes everything; the others follow it (rank_protocol.hpp).
  std::shared_ptr<dist::World> world;
  bool follower = false;  // a rank other than 0: rank 0 decides when segments end or stop
  // --shard i/n: measure only this shard of the matrix (shard.hpp); the baseline is still chosen
  // over the whole matrix, and run.provenance.shard records which shard this is.
  std::optional<Shard> shard;
  // The revision of the code being measured, recorded as environment.code_under_test (none when empty).
  CodeUnderTest code_under_test;
  // Test-only: called before every step of every scenario (outside the timed region), e.g. to
  // inject an out-of-memory error. In this process only: with `isolate` the workers run the steps.
  std::function<void(const ScenarioParams&, int step)> test_hook;
};

// Everything a run needs before it starts: catalog of models/datasets and device availability.
MatrixParseOptions default_parse_options();
bool cuda_available();

// Runs every scenario of `spec` (of options.shard when set); never throws for a scenario's
// failure. After SIGINT/SIGTERM (interrupt.hpp) it stops between steps, marks what did not finish
// "interrupted" and still writes results, reports and history for what did.
RunResult run_matrix(const MatrixSpec& spec, const RunOptions& options);

// How a resume came about, recorded in run.provenance.resume.
struct ResumeRecord {
  std::string resumed_at;           // UTC ISO 8601
  std::vector<std::string> forced;  // --force: what changed since the run (resume_check.hpp)
};

// Finishes `previous` (an interrupted or partly failed run): measures again, from the start,
// every scenario of `spec` (of options.shard when set) whose status there is not ok or skipped,
// keeps the others as they are and writes the merged results (same run id) into
// options.out_dir, then reports and history as run_matrix does. The caller checked that `spec` is still the run's matrix (resume.hpp).
RunResult resume_matrix(const MatrixSpec& spec, RunResult previous, const RunOptions& options,
                        const ResumeRecord& record);
// The scenarios of `spec` as `run` measured them: batch "max" takes the batch its capacity
// search found there (per model and precision) instead of searching again.
std::vector<ScenarioParams> scenarios_as_run(const MatrixSpec& spec, const RunResult& run);

// Runs one scenario (used by run_matrix and the capacity search); throws on failure.
ScenarioResult run_scenario(const ScenarioParams& params, const RunOptions& options);

}  // namespace tb
