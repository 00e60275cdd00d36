// `run --isolate`: the scenarios of a matrix, each in its own `trainbench worker --isolate`
// process, driven through the same schedule as the in-process ScenarioTable. A segfault, abort
// or std::terminate while a scenario is built, measured or finished ends only its worker: the
// scenario becomes "crashed", its message says how the worker ended (e.g. "signal 11
// (Segmentation fault)") and quotes the tail of its stderr, and the matrix goes on.
//
// One worker per scenario, not one worker for all that is restarted without the scenario that
// crashed: a scenario keeps state across the rounds of the interleaved schedule (model,
// optimizer, data order, the segments measured so far), so with one shared worker a crash would
// take every other scenario's state with it, and a restart would have to measure them again from
// scratch or splice results from two processes. With one worker each, a crash loses only the
// scenario that crashed, the schedule is unchanged, and a scenario's peak RSS is its own
// process's. The price: a process start (LibTorch, matrix, CUDA context) per scenario and one
// idle process per live scenario; the README's "Crash isolation" section has the measured cost.
//
// The worker protocol (worker_protocol.hpp) through the one client (worker_client.hpp). Each
// worker's stderr goes to a file in the results folder (".worker-N-PID.stderr", removed
// when the worker is done), never to a pipe: a chatty worker can then never block while this
// process waits for its reply. Workers live in their own process group (Ctrl-C reaches `run`
// only) and die with `run`. A worker that gives no reply for options.hang_timeout_s (a deadlock,
// a loop on a corrupted heap) is killed, and its scenario is "crashed" as one that hung.
//
// Ctrl-C reaches `run` only: while it waits for a worker's reply it polls interrupted(), and
// once set it kills that worker (its unfinished segment is dropped, as in-process) and returns;
// interrupt_unfinished() then records every unfinished scenario with the segments its worker
// reported so far, as "interrupted", never "crashed".
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/runner/torch/scenario_set.hpp>
#include <trainbench/runner/worker_client.hpp>

namespace tb {

class IsolatedScenarioTable final : public ScenarioSet {
 public:
  using Clock = std::chrono::steady_clock;

  // `scenarios` (the ones to measure) are those at `matrix_index` of the expansion of
  // `matrix_file` with options.set_overrides, whose scenarios_digest is `matrix_digest` (a resume
  // measures only some). Every worker expands the file again and must agree (same digest, same id
  // at that index), else that scenario fails. `listener` hears of every finished scenario; may be
  // nullptr.
  IsolatedScenarioTable(std::vector<ScenarioParams> scenarios, std::vector<std::size_t> matrix_index,
                        std::string matrix_digest, std::string matrix_file, const RunOptions& options,
                        Clock::time_point run_start, RunListener* listener);
  ~IsolatedScenarioTable() override;

  std::size_t size() const override { return slots_.size(); }
  std::string id(std::size_t i) const override { return slots_[i].id; }
  bool active(std::size_t i) const override { return !slots_[i].result.has_value(); }
  bool converged(std::size_t i) const override { return slots_[i].converged; }
  void segment(std::size_t i, int round) override;
  void finish(std::size_t i) override;
  void interrupt_unfinished() override;
  std::optional<ScenarioResult> snapshot_of(std::size_t i) const override;
  std::optional<ScenarioResult> take_result(std::size_t i) override;

 private:
  struct Slot {
    ScenarioParams params;
    std::string id;
    std::size_t matrix_index = 0;  // its index in the worker's expansion
    std::unique_ptr<WorkerClient> worker;
    std::string stderr_path;
    int segments = 0;                        // measured so far (for the crash message)
    bool converged = false;                  // as of the last segment
    std::optional<ScenarioResult> snapshot;  // the worker's, after its last segment
    std::optional<ScenarioResult> result;    // set once finished (ok or not)
  };
  // Starts scenario i's worker; false when it could not (the scenario is then finished).
  bool start(std::size_t i);
  // The worker died (or broke the protocol) during `during`: the scenario is "crashed".
  void crashed(std::size_t i, const std::string& during);
  void crashed(std::size_t i, const std::string& during, const ChildExit& how);
  // The worker gave no reply for the hang timeout during `during`: killed, the scenario "crashed".
  void hung(std::size_t i, const std::string& during);
  // The worker could not start or did not agree on the matrix: the scenario is "failed".
  void failed(std::size_t i, const std::string& why);
  // Records scenario i's result, lets its worker go and tells the listener.
  void conclude(std::size_t i, ScenarioResult result, bool stderr_quoted = false);

  std::vector<Slot> slots_;
  std::string matrix_file_;
  const RunOptions& options_;
  Clock::time_point run_start_;
  RunListener* listener_;
  std::string program_;  // the trainbench executable the workers run
  std::string digest_;   // scenarios_digest of this process's expansion
  std::size_t finished_ = 0;
};

}  // namespace tb
