// The order in which a matrix's scenarios are measured, one segment at a time, whatever measures
// them: the scenarios of this process (`run`), worker processes (`run --isolate`), the ranks of a
// data-parallel run, or two builds side by side (`ab`). Each of these is a SegmentExecutor; the
// Schedule alone decides which scenario measures which round, in which order, and when a
// scenario has had enough. A new way to run scenarios (another process, another language) is one
// new SegmentExecutor, and it is measured in exactly the order every other one is.
//
// Interleaved (the default): round after round, every active scenario measures one segment, in a
// new shuffled order each round, so that drift of the machine spreads over all scenarios alike
// and no scenario always follows the same neighbour. The shuffle comes from one generator seeded
// from the matrix's seed: the same matrix gives the same orders in every executor. Sequential
// (`steps.interleave: false`): each scenario's rounds back to back, then the next scenario.
//
// Stopping: a scenario measures the planned `rounds`; past them only scenarios whose interval is
// still wider than the target go on, up to `max_rounds` (measures_round()).
//
// Torch-free and allocation-light: tests drive it with a scripted executor.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <trainbench/matrix/scenario.hpp>

namespace tb {

// What the schedule drives: scenarios 0..size()-1, each alive from its first segment to its
// finish. An executor that records a scenario's failure as the scenario's status returns
// normally; one that cannot go on at all (an A/B session whose worker crashed) throws, and the
// schedule lets the exception through.
class SegmentExecutor {
 public:
  virtual ~SegmentExecutor() = default;

  virtual std::size_t size() const = 0;
  // Not finished yet (ok or not).
  virtual bool active(std::size_t i) const = 0;
  // Measured at least once and its interval is within the target.
  virtual bool converged(std::size_t i) const = 0;
  // Before round `round`'s first segment (interleaved schedule only). Nothing by default; an A/B
  // set starts a fresh pair of worker processes here.
  virtual void round_starting(int /*round*/) {}
  // Measures one segment of scenario i in `round`. A failure finishes it with that status. An
  // interrupt drops the unfinished segment and returns; the schedule then stops and calls
  // interrupt_unfinished().
  virtual void segment(std::size_t i, int round) = 0;
  // The schedule is done with scenario i: finish it (divergence check, memory budget, profiling
  // pass) or record why not.
  virtual void finish(std::size_t i) = 0;
  // The schedule is done with every scenario.
  virtual void finish_all() {
    for (std::size_t i = 0; i < size(); ++i) finish(i);
  }
  // Marks every scenario not finished yet "interrupted", keeping the segments it measured.
  virtual void interrupt_unfinished() = 0;
};

// The stopping rule: a scenario that has measured `round` rounds (0-based: about to measure
// round `round`) goes on when the round is planned, or when it is an extra round within
// max_rounds and its interval is still wider than the target.
bool measures_round(const StoppingRule& rule, int round, bool converged);

// Whether the two sides of a pair go OLD first (false) or NEW first (true) for scenario i in
// `round`: a coin flip per block of two rounds, the block's second round taking the other order,
// so after any even number of rounds each side went first equally often. Whichever side runs
// second is measured on a slightly warmer, busier machine (about 2% slower on a 2-core VM); a
// free coin let that bias stand in sessions that stop early, balanced blocks cancel it. The coin
// depends on the seed, the scenario and the round only, so it does not disturb the shuffle's
// sequence and is the same however many scenarios are still active.
bool pair_order_coin(std::uint64_t seed, std::size_t i, int round);

// What the schedule tells its caller between segments. Every member may be empty.
struct ScheduleHooks {
  // Asked before every segment: true stops the schedule (Ctrl-C); every unfinished scenario is
  // then interrupted rather than finished.
  std::function<bool()> stop;
  // After every interleaved round that measured something: the round, and the scenarios that
  // measure the next one (empty when the schedule is over).
  std::function<void(int round, const std::vector<std::size_t>& next)> round_finished;
  // After every round (interleaved) or every scenario (sequential), measured or not: the moment
  // to save what was measured so far.
  std::function<void()> checkpoint;
};

class Schedule {
 public:
  // `seed`: the matrix's seed. One generator, one mixing constant: every executor of the same
  // matrix sees the same orders.
  Schedule(const StoppingRule& rule, std::uint64_t seed);

  // Drives `executor` to the end: every scenario finished, or interrupted when hooks.stop said so.
  void run(SegmentExecutor& executor, const ScheduleHooks& hooks = {});

  // The scenarios that measure round `next` (0-based): every active one within the planned
  // rounds, past them only the unconverged ones, none past max_rounds.
  std::vector<std::size_t> still_going(const SegmentExecutor& executor, int next) const;

  const StoppingRule& rule() const { return rule_; }
  std::uint64_t seed() const { return seed_; }

 private:
  void run_interleaved(SegmentExecutor& executor, const ScheduleHooks& hooks);
  void run_sequential(SegmentExecutor& executor, const ScheduleHooks& hooks);
  StoppingRule rule_;
  std::uint64_t seed_;
};

}  // namespace tb
