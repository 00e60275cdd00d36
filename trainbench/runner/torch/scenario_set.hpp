// What `run`'s schedule (schedule.hpp) drives: the scenarios of one matrix, each alive from its
// first segment to its finish, with their results. Three implementations: ScenarioTable keeps
// them all in this process; IsolatedScenarioTable (`run --isolate`) keeps each in its own worker
// process, so that a crash ends one scenario, not the run; LeaderScenarioTable (rank 0 of a
// data-parallel run) keeps them here and has the other ranks follow.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <trainbench/results/results.hpp>
#include <trainbench/runner/schedule.hpp>

namespace tb {

class ScenarioSet : public SegmentExecutor {
 public:
  // Scenario i's id ("mlp/fp32/w0/a1/b32").
  virtual std::string id(std::size_t i) const = 0;
  // Scenario i alone: its result once finished, else its snapshot (stop reason "in_progress")
  // once measured, else nothing.
  virtual std::optional<ScenarioResult> snapshot_of(std::size_t i) const = 0;
  // Scenario i's result once finished (moved out), else nothing.
  virtual std::optional<ScenarioResult> take_result(std::size_t i) = 0;

  // Finished results, and snapshots of the scenarios still running, in matrix order.
  std::vector<ScenarioResult> snapshot() const {
    std::vector<ScenarioResult> out;
    for (std::size_t i = 0; i < size(); ++i)
      if (auto r = snapshot_of(i)) out.push_back(std::move(*r));
    return out;
  }
  // Every result, in matrix order (never-measured scenarios left out); call after finish_all()
  // or interrupt_unfinished().
  std::vector<ScenarioResult> take_results() {
    std::vector<ScenarioResult> out;
    for (std::size_t i = 0; i < size(); ++i)
      if (auto r = take_result(i)) out.push_back(std::move(*r));
    return out;
  }
};

// The result of a scenario the run stopped before it finished: `measured` (its segments so far,
// when it has any) marked "interrupted", with a message that says how far it got and that
// `run --resume` measures it again. Both implementations record interruptions through this.
ScenarioResult interrupted_result(std::optional<ScenarioResult> measured, const ScenarioParams& params);

}  // namespace tb
