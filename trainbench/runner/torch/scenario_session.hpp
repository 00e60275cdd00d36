// One scenario kept alive across the rounds of an interleaved schedule: its model, optimizer,
// data loader and timer are built once; each round measures one more segment of steps. Between
// segments other scenarios run, so each segment re-warms first and brings back this scenario's
// own random-number state (the data order must not depend on what ran in between).
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include <trainbench/measure/torch/step_timer.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/runner/torch/runner.hpp>

namespace tb {

class ScenarioSession {
 public:
  using Clock = std::chrono::steady_clock;

  // Builds the scenario (throws ScenarioSkipped for a mode the device cannot run, or whatever
  // building it throws). `run_start` dates the segments; `base_rss_bytes` is the process's
  // resident size before any scenario was built: with other scenarios alive in the same process,
  // this one's peak is counted as base + its own growth (see MemoryWatch).
  // A data-parallel scenario (world_size > 1) needs options.world (reducer "always" alone makes
  // a one-rank world of its own); every rank below its world_size builds it at the same time with the same
  // `group_tag` (unique in the run: its process group and messages are named after it), and
  // rank 0 gathers the others' timings when it finishes.
  ScenarioSession(const ScenarioParams& params, const RunOptions& options, Clock::time_point run_start,
                  std::int64_t base_rss_bytes, const std::string& group_tag = "");
  ~ScenarioSession();
  ScenarioSession(const ScenarioSession&) = delete;
  ScenarioSession& operator=(const ScenarioSession&) = delete;

  // Measures one segment in round `round`; the first call runs the warm-up first. Throws what
  // the training step throws (out of memory, ...), or Interrupted (interrupt.hpp) when a signal
  // arrived: that segment is then dropped and the session is as after its last whole segment.
  void run_segment(int round);

  int segments() const;
  // The drift-aware interval exists and is within +-target_rel_ci of the median.
  bool converged() const;
  // The result so far, without profiling (saved after every round).
  ScenarioResult snapshot() const;
  // The final result: divergence check, memory budget (throws MemoryBudgetExceeded), then the
  // profiling pass. Call once, after the last segment.
  ScenarioResult finish();

  const ScenarioParams& params() const;

 private:
  struct State;
  static void gather_rank_traces(State& s, ProfileSection& profile);
  // A Python loop's scenario (params.loop python): its worker, segments and profiling window.
  static void start_python_loop(State& s);
  static void run_python_segment(State& s, int round);
  static ProfileSection profile_python(State& s);
  std::unique_ptr<State> s_;
};

// The scenario's peak memory went past --memory-budget: the CPU's stand-in for a CUDA OOM.
struct MemoryBudgetExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tb
