#include <trainbench/measure/contended_rounds.hpp>

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace {

using tb::RoundContention;
using tb::SegmentLoad;

// A quiet 2-vCPU segment of `wall_s` seconds at 100 ticks a second, with `steal` ticks of steal.
SegmentLoad arm(double wall_s, std::uint64_t steal = 0, double other_cores = 0.01) {
  SegmentLoad a;
  a.available = true;
  a.wall_s = wall_s;
  a.num_cpus = 2;
  a.ticks_per_s = 100;
  a.other_cpu_cores = other_cores;
  a.total_ticks = static_cast<std::uint64_t>(wall_s * 200);
  a.steal_ticks = steal;
  return a;
}

TEST(ContendedRounds, AQuietArmIsNotContended) {
  const tb::ArmContention c = tb::judge_arm(arm(2.0, 2));
  EXPECT_FALSE(c.contended);
  EXPECT_TRUE(c.steal_judged);
  EXPECT_TRUE(c.reason.empty());
}

// The "steal time was 100.0% of CPU time": a fraction over a few ticks says nothing.
TEST(ContendedRounds, StealOverAFewTicksIsNotJudged) {
  SegmentLoad a = arm(0.02, 4);  // 4 ticks in all, every one steal
  const tb::ArmContention c = tb::judge_arm(a);
  EXPECT_FALSE(c.steal_judged);
  EXPECT_FALSE(c.contended);
}

TEST(ContendedRounds, StealOverALongWindowIsContended) {
  const tb::ArmContention c = tb::judge_arm(arm(2.0, 40));  // 10% of 400 ticks
  EXPECT_TRUE(c.steal_judged);
  EXPECT_TRUE(c.contended);
  EXPECT_EQ(c.reason, "steal 10.0% of CPU time over 2.00 s (threshold 5.0%)");
}

// One tick per CPU of quantisation is subtracted: 6% of 100 ticks (6 ticks, 2 CPUs) is 4% at
// least, within the 5% threshold; 8% is not.
TEST(ContendedRounds, StealQuantisationIsSubtracted) {
  EXPECT_FALSE(tb::judge_arm(arm(0.5, 6)).contended);
  EXPECT_TRUE(tb::judge_arm(arm(0.5, 8)).contended);
  tb::RoundContentionOptions longer;
  longer.min_window_ticks = 200;
  EXPECT_FALSE(tb::judge_arm(arm(0.5, 8), longer).steal_judged);
}

TEST(ContendedRounds, OtherProcessesAndGpuThrottling) {
  const tb::ArmContention loaded = tb::judge_arm(arm(2.0, 0, 0.9));
  EXPECT_TRUE(loaded.contended);
  EXPECT_EQ(loaded.reason, "other processes used 0.90 cores over 2.00 s (threshold 0.25)");
  // Over 20 ms the tick resolution (2 CPUs / (100 * 0.02 s) = 1 core) hides even 0.9 cores.
  EXPECT_FALSE(tb::judge_arm(arm(0.02, 0, 0.9)).contended);
  SegmentLoad hot = arm(2.0);
  hot.gpu_throttled = true;
  EXPECT_EQ(tb::judge_arm(hot).reason, "GPU thermal or hardware slowdown");
  SegmentLoad unknown = arm(2.0, 100, 3.0);
  unknown.available = false;
  EXPECT_FALSE(tb::judge_arm(unknown).contended);
}

TEST(ContendedRounds, ARoundIsContendedWhenEitherArmIs) {
  const RoundContention quiet = tb::judge_round(0, arm(2.0), arm(2.0));
  EXPECT_FALSE(quiet.contended);
  const RoundContention r = tb::judge_round(3, arm(2.0), arm(2.0, 40));
  EXPECT_TRUE(r.contended);
  EXPECT_EQ(r.round, 3);
  EXPECT_EQ(r.reason, "NEW: steal 10.0% of CPU time over 2.00 s (threshold 5.0%)");
  EXPECT_TRUE(tb::judge_round(4, arm(2.0, 0, 0.9), arm(2.0)).contended);
}

TEST(ContendedRounds, ArmLoadFromADisturbance) {
  tb::Disturbance d;
  d.available = true;
  d.wall_s = 1.5;
  d.num_cpus = 2;
  d.steal_fraction = 0.1;
  d.other_cpu_cores = 0.3;
  const SegmentLoad a = tb::arm_load(d);
  EXPECT_EQ(a.total_ticks, 300u);
  EXPECT_EQ(a.steal_ticks, 30u);
  EXPECT_DOUBLE_EQ(a.other_cpu_cores, 0.3);
  EXPECT_FALSE(a.gpu_throttled);
  EXPECT_TRUE(tb::judge_arm(a).contended);
}

std::vector<RoundContention> rounds_with(int total, const std::vector<int>& contended) {
  std::vector<RoundContention> v;
  for (int r = 0; r < total; ++r) {
    RoundContention c;
    c.round = r;
    for (const int x : contended)
      if (x == r) c.contended = true, c.reason = "NEW: steal 7.0% of CPU time over 1.00 s (threshold 5.0%)";
    v.push_back(c);
  }
  return v;
}

TEST(ContendedRounds, ContendedRoundsAreDroppedUpToAThirdOfTheBudget) {
  const auto rounds = rounds_with(14, {3, 8});
  const tb::PairedContention s = tb::judge_session(rounds, 30);
  EXPECT_EQ(s.measured, 14);
  EXPECT_EQ(s.clean, 12);
  EXPECT_EQ(s.dropped, 2);
  EXPECT_EQ(s.allowed, 10);
  EXPECT_FALSE(s.refused);
  EXPECT_EQ(s.dropped_rounds, (std::vector<int>{3, 8}));
  EXPECT_EQ(s.summary(),
            "2 of 14 rounds dropped (contended): round 4: NEW: steal 7.0% of CPU time over 1.00 s (threshold 5.0%); "
            "round 9: NEW: steal 7.0% of CPU time over 1.00 s (threshold 5.0%)");
  const std::vector<double> ratios(14, 1.0);
  EXPECT_EQ(tb::clean_values(ratios, rounds).size(), 12u);
  EXPECT_THROW(tb::clean_values(std::vector<double>(3, 1.0), rounds), std::invalid_argument);
}

TEST(ContendedRounds, MoreThanAThirdIsRefused) {
  std::vector<int> eleven;
  for (int r = 0; r < 11; ++r) eleven.push_back(2 * r);
  const tb::PairedContention s = tb::judge_session(rounds_with(25, eleven), 30);
  EXPECT_EQ(s.allowed, 10);
  EXPECT_TRUE(s.refused);
  EXPECT_NE(s.summary().find("more than the 10 the budget allows: refused"), std::string::npos);
  // The smallest budget still allows one contended round.
  EXPECT_EQ(tb::judge_session(rounds_with(4, {1}), 3).allowed, 1);
  EXPECT_FALSE(tb::judge_session(rounds_with(4, {1}), 3).refused);
  EXPECT_TRUE(tb::judge_session(rounds_with(5, {1, 2}), 3).refused);
  EXPECT_THROW(tb::judge_session(rounds_with(1, {}), 0), std::invalid_argument);
  EXPECT_THROW(tb::judge_session(rounds_with(1, {}), 3, 1.0), std::invalid_argument);
}

}  // namespace
