// Schedule: the one order every executor is measured in (interleaved rounds, one shuffle per
// round from the matrix's seed), and the one stopping rule (past the planned rounds only the
// unconverged scenarios go on), driven here through a scripted executor.
#include <trainbench/runner/schedule.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

using tb::Schedule;
using tb::ScheduleHooks;
using tb::SegmentExecutor;
using tb::StoppingRule;

// Records every call; scenario i converges once it has converge_after[i] segments (0: never) and
// fails at its fail_at[i]-th segment (0: never).
class ScriptedExecutor final : public SegmentExecutor {
 public:
  explicit ScriptedExecutor(std::size_t n) : converge_after(n, 1), fail_at(n, 0), segments(n, 0), done(n, false) {}

  std::size_t size() const override { return segments.size(); }
  bool active(std::size_t i) const override { return !done[i]; }
  bool converged(std::size_t i) const override { return converge_after[i] > 0 && segments[i] >= converge_after[i]; }
  void round_starting(int round) override { calls.push_back("start " + std::to_string(round)); }
  void segment(std::size_t i, int round) override {
    EXPECT_FALSE(done[i]) << "a finished scenario was measured: " << i;
    ++segments[i];
    measured.push_back({i, round});
    calls.push_back("segment " + std::to_string(i) + " " + std::to_string(round));
    if (fail_at[i] == segments[i]) done[i] = true;  // failed: finished with that status
  }
  void finish(std::size_t i) override {
    if (done[i]) return;
    done[i] = true;
    finished.push_back(i);
    calls.push_back("finish " + std::to_string(i));
  }
  void interrupt_unfinished() override {
    interrupted = true;
    for (std::size_t i = 0; i < size(); ++i) done[i] = true;
  }

  // The scenarios measured in `round`, in the order they were.
  std::vector<std::size_t> order_of(int round) const {
    std::vector<std::size_t> order;
    for (const auto& [i, r] : measured)
      if (r == round) order.push_back(i);
    return order;
  }

  std::vector<int> converge_after, fail_at, segments;
  std::vector<bool> done;
  std::vector<std::pair<std::size_t, int>> measured;
  std::vector<std::size_t> finished;
  std::vector<std::string> calls;
  bool interrupted = false;
};

StoppingRule rule(int rounds, int max_rounds, bool interleave = true) {
  StoppingRule r;
  r.rounds = rounds;
  r.max_rounds = max_rounds;
  r.interleave = interleave;
  return r;
}

TEST(Schedule, EveryScenarioMeasuresEveryPlannedRoundOnceInAShuffledOrder) {
  ScriptedExecutor table(8);
  Schedule(rule(6, 6), 42).run(table);
  std::set<std::vector<std::size_t>> orders;
  for (int round = 0; round < 6; ++round) {
    auto order = table.order_of(round);
    orders.insert(order);
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7})) << "round " << round;
  }
  EXPECT_GT(orders.size(), 1u) << "the order must change from round to round";
  EXPECT_EQ(table.measured.size(), 48u);
  // Finished at the end, each once.
  EXPECT_EQ(table.finished.size(), 8u);
}

TEST(Schedule, OneSeedGivesOneSequenceOfOrdersWhateverTheExecutor) {
  ScriptedExecutor a(6), b(6), c(6);
  Schedule(rule(5, 5), 7).run(a);
  Schedule(rule(5, 5), 7).run(b);
  Schedule(rule(5, 5), 8).run(c);
  EXPECT_EQ(a.measured, b.measured);
  EXPECT_NE(a.measured, c.measured);
}

TEST(Schedule, PastThePlannedRoundsOnlyUnconvergedScenariosGoOn) {
  ScriptedExecutor table(3);
  table.converge_after = {1, 4, 0};  // 0 converges at once, 1 after 4 segments, 2 never
  Schedule(rule(2, 6), 1).run(table);
  EXPECT_EQ(table.segments, (std::vector<int>{2, 4, 6}));
  // Scenario 0 is finished as soon as the schedule sees it converged past the planned rounds.
  ASSERT_FALSE(table.finished.empty());
  EXPECT_EQ(table.finished.front(), 0u);
  EXPECT_TRUE(table.order_of(6).empty());  // never beyond max_rounds
}

TEST(Schedule, StillGoingNamesTheScenariosOfTheNextRound) {
  ScriptedExecutor table(3);
  table.converge_after = {1, 0, 1};
  table.segments = {1, 1, 0};
  table.done[2] = true;
  const Schedule schedule(rule(2, 4), 1);
  EXPECT_EQ(schedule.still_going(table, 1), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(schedule.still_going(table, 2), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(schedule.still_going(table, 4).empty());
}

TEST(Schedule, TheRoundHookHearsEachMeasuredRoundAndTheNextRoundsScenarios) {
  ScriptedExecutor table(2);
  table.converge_after = {1, 3};
  std::vector<std::pair<int, std::vector<std::size_t>>> heard;
  int checkpoints = 0;
  ScheduleHooks hooks;
  hooks.round_finished = [&](int round, const std::vector<std::size_t>& next) { heard.push_back({round, next}); };
  hooks.checkpoint = [&] { ++checkpoints; };
  Schedule(rule(2, 5), 3).run(table, hooks);
  ASSERT_EQ(heard.size(), 3u);
  EXPECT_EQ(heard[0], (std::pair<int, std::vector<std::size_t>>{0, {0, 1}}));
  EXPECT_EQ(heard[1], (std::pair<int, std::vector<std::size_t>>{1, {1}}));
  EXPECT_EQ(heard[2], (std::pair<int, std::vector<std::size_t>>{2, {}}));
  // Round 3 measures nothing: it still checkpoints, then the schedule ends.
  EXPECT_EQ(checkpoints, 4);
}

TEST(Schedule, RoundStartingComesBeforeEachRoundsSegments) {
  ScriptedExecutor table(2);
  Schedule(rule(2, 2), 5).run(table);
  ASSERT_EQ(table.calls.size(), 8u);
  EXPECT_EQ(table.calls[0], "start 0");
  EXPECT_EQ(table.calls[3], "start 1");
  EXPECT_EQ(table.calls[6].rfind("finish", 0), 0u);
}

TEST(Schedule, AFailedScenarioIsMeasuredNoFurther) {
  ScriptedExecutor table(3);
  table.fail_at = {0, 2, 0};
  Schedule(rule(4, 4), 9).run(table);
  EXPECT_EQ(table.segments, (std::vector<int>{4, 2, 4}));
}

TEST(Schedule, SequentialRunsEachScenariosRoundsBackToBack) {
  ScriptedExecutor table(3);
  table.converge_after = {1, 0, 1};
  int checkpoints = 0;
  ScheduleHooks hooks;
  hooks.checkpoint = [&] { ++checkpoints; };
  Schedule(rule(2, 3, /*interleave=*/false), 1).run(table, hooks);
  const std::vector<std::pair<std::size_t, int>> expected = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}};
  EXPECT_EQ(table.measured, expected);
  EXPECT_EQ(table.finished, (std::vector<std::size_t>{0, 1, 2}));  // each right after its rounds
  EXPECT_EQ(checkpoints, 3);
  EXPECT_EQ(std::count(table.calls.begin(), table.calls.end(), "start 0"), 0);
}

TEST(Schedule, AStopInterruptsTheUnfinishedInsteadOfFinishingThem) {
  ScriptedExecutor table(4);
  ScheduleHooks hooks;
  hooks.stop = [&] { return table.measured.size() >= 5; };
  Schedule(rule(3, 3), 2).run(table, hooks);
  EXPECT_EQ(table.measured.size(), 5u);
  EXPECT_TRUE(table.interrupted);
  EXPECT_TRUE(table.finished.empty());
}

TEST(Schedule, MeasuresRoundIsTheStoppingRule) {
  const StoppingRule r = rule(3, 5);
  EXPECT_TRUE(tb::measures_round(r, 0, true));
  EXPECT_TRUE(tb::measures_round(r, 2, true));   // planned: converged or not
  EXPECT_FALSE(tb::measures_round(r, 3, true));  // extra rounds only for the unconverged
  EXPECT_TRUE(tb::measures_round(r, 4, false));
  EXPECT_FALSE(tb::measures_round(r, 5, false));  // never past max_rounds
}

TEST(Schedule, ThePairOrderIsBalancedInBlocksOfTwoAndDependsOnSeedScenarioAndRoundOnly) {
  int new_first = 0;
  std::map<std::pair<std::size_t, int>, bool> first_seen;
  for (std::size_t i = 0; i < 40; ++i)
    for (int round = 0; round < 50; ++round) {
      const bool coin = tb::pair_order_coin(42, i, round);
      new_first += coin ? 1 : 0;
      EXPECT_EQ(coin, tb::pair_order_coin(42, i, round));
    }
  // 1000 fair flips, each answered by the other order in the next round: exactly half.
  EXPECT_EQ(new_first, 1000);
  // Each block of two rounds has one of each order; which comes first is the coin's.
  int blocks_new_first = 0;
  for (std::size_t i = 0; i < 40; ++i)
    for (int round = 0; round < 50; round += 2) {
      EXPECT_NE(tb::pair_order_coin(42, i, round), tb::pair_order_coin(42, i, round + 1)) << i << " " << round;
      blocks_new_first += tb::pair_order_coin(42, i, round) ? 1 : 0;
    }
  // 1000 fair flips: within 5 standard deviations (about 80) of 500.
  EXPECT_NEAR(blocks_new_first, 500, 80);
  int differs = 0;
  for (int round = 0; round < 64; ++round)
    differs += tb::pair_order_coin(1, 0, round) != tb::pair_order_coin(2, 0, round);
  EXPECT_GT(differs, 10);
}

}  // namespace
