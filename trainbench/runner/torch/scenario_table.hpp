// The scenarios of one matrix in one process, each alive from its first segment to its finish:
// what `run`'s interleaved schedule and a `worker` of an A/B session both drive. A scenario's
// failure (an exception while building, measuring or finishing it) becomes its status here and
// never reaches the caller.
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include <trainbench/results/results.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/runner/torch/scenario_session.hpp>
#include <trainbench/runner/torch/scenario_set.hpp>

namespace tb {

class ScenarioTable final : public ScenarioSet {
 public:
  using Clock = std::chrono::steady_clock;

  // `listener` hears of every finished scenario; may be nullptr. `base_rss_bytes`: the
  // process's resident size before any scenario was built.
  ScenarioTable(std::vector<ScenarioParams> scenarios, const RunOptions& options, Clock::time_point run_start,
                std::int64_t base_rss_bytes, RunListener* listener);
  ~ScenarioTable() override;

  std::size_t size() const override { return slots_.size(); }
  std::string id(std::size_t i) const override { return scenario_id(slots_[i].params); }
  const ScenarioParams& params(std::size_t i) const { return slots_[i].params; }
  bool active(std::size_t i) const override { return !slots_[i].result.has_value(); }
  bool converged(std::size_t i) const override;

  // Measures one segment of scenario i in `round` (building it first when needed). A failure
  // finishes it with that status. An interrupt (interrupt.hpp) drops the unfinished segment and
  // returns; the caller stops the schedule and calls interrupt_unfinished().
  void segment(std::size_t i, int round) override;
  // Finishes scenario i (divergence check, memory budget, profiling pass) or records why not;
  // a scenario never measured gets no result.
  void finish(std::size_t i) override;
  void finish_all() override;
  void interrupt_unfinished() override;
  // Ends scenario i as failed for a reason outside it (another rank of a data-parallel scenario
  // failed); nothing when it is already finished.
  void abort(std::size_t i, const std::string& why);

  std::optional<ScenarioResult> snapshot_of(std::size_t i) const override;
  std::optional<ScenarioResult> take_result(std::size_t i) override;

 private:
  struct Slot {
    ScenarioParams params;
    std::unique_ptr<ScenarioSession> session;
    std::optional<ScenarioResult> result;  // set once finished (ok or not)
  };
  void fail(std::size_t i, std::exception_ptr error);
  void report(std::size_t i);

  std::vector<Slot> slots_;
  const RunOptions& options_;
  Clock::time_point run_start_;
  std::int64_t base_rss_;
  RunListener* listener_;
  std::size_t finished_ = 0;
};

std::int64_t current_rss_bytes();

}  // namespace tb
