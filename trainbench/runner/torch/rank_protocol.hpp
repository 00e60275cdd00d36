// How the ranks of a data-parallel run stay in step. Rank 0 runs the usual schedule (schedule.hpp)
// over a LeaderScenarioTable; every other rank runs follow_leader(), which does what rank 0's
// commands say, in the same order, so all ranks build, measure and finish each data-parallel
// scenario together. The commands and the followers' answers are the worker protocol's messages
// (worker_protocol.hpp), carried by the rendezvous store rather than pipes or collectives: a
// follower may wait minutes while rank 0 measures one-process scenarios, and a store wait has no
// reason to time out then. Inside a scenario the ranks meet in collectives, each bounded by the
// run's timeout (--dist-timeout).
#pragma once
#include <memory>
#include <string>

#include <trainbench/runner/torch/scenario_table.hpp>
#include <trainbench/runner/worker_protocol.hpp>

namespace tb {

namespace dist {
class World;
}

class LeaderScenarioTable final : public ScenarioSet {
 public:
  // Publishes the scenarios (the followers build the same table from them) and the results folder
  // (where every rank writes its profiling traces), and keeps `table`.
  LeaderScenarioTable(std::shared_ptr<dist::World> world, std::unique_ptr<ScenarioTable> table,
                      const std::string& out_dir);
  // Tells the followers the run is over.
  ~LeaderScenarioTable() override;

  std::size_t size() const override { return table_->size(); }
  std::string id(std::size_t i) const override { return table_->id(i); }
  bool active(std::size_t i) const override { return table_->active(i); }
  bool converged(std::size_t i) const override { return table_->converged(i); }
  // A scenario on several ranks: the followers are told first, and when any rank failed it, it
  // is failed on every rank (the message names the rank and why).
  void segment(std::size_t i, int round) override;
  void finish(std::size_t i) override;
  void interrupt_unfinished() override { table_->interrupt_unfinished(); }
  std::optional<ScenarioResult> snapshot_of(std::size_t i) const override { return table_->snapshot_of(i); }
  std::optional<ScenarioResult> take_result(std::size_t i) override { return table_->take_result(i); }

 private:
  bool on_several_ranks(std::size_t i) const;
  void send(const WorkerRequest& command);
  std::shared_ptr<dist::World> world_;
  std::unique_ptr<ScenarioTable> table_;
  int sent_ = 0;
};

// A rank other than 0: builds the table rank 0 published and obeys its commands until rank 0
// says the run is over. `options` are this rank's (its world, no listener); it writes nothing but
// its own profiling traces, in rank 0's results folder.
// Returns 0, or throws DistributedError when rank 0 went silent past the timeout.
int follow_leader(const RunOptions& options);

// Rank 0 tells the followers the run ended before it began (a bad matrix, an interrupt during a
// capacity search), so they exit instead of waiting for commands.
void release_followers(dist::World& world);

}  // namespace tb
