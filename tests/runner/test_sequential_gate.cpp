#include <trainbench/runner/sequential_gate.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace {

using tb::Segment;
using tb::SegmentLoad;
using tb::SequentialEnd;
using tb::SequentialGate;
using tb::SequentialGateOptions;

// A quiet 2-vCPU segment of one second, or one whose steal was a fifth of its CPU time.
SegmentLoad load(bool stolen) {
  SegmentLoad l;
  l.available = true;
  l.wall_s = 1.0;
  l.num_cpus = 2;
  l.ticks_per_s = 100;
  l.other_cpu_cores = 0.01;
  l.total_ticks = 200;
  l.steal_ticks = stolen ? 40 : 0;
  return l;
}

Segment segment(int round, double median_s, bool stolen = false) {
  Segment s;
  s.round = round;
  s.steps = 10;
  s.median_s = median_s;
  s.load = load(stolen);
  return s;
}

// Feeds scenario 0 of `gate` rounds whose NEW/OLD is `slowdown` times a log-normal jitter of
// sd `noise` (fixed seed), until the gate says it is done or `limit` rounds were given.
int feed(SequentialGate& gate, double slowdown, double noise, unsigned seed, int limit = 1000) {
  std::mt19937 engine(seed);
  std::normal_distribution<double> jitter(0.0, noise);
  int round = 0;
  while (!gate.done(0) && round < limit) {
    const double old_s = 0.1;
    gate.add_round(0, round, segment(round, old_s), segment(round, old_s * slowdown * std::exp(jitter(engine))));
    ++round;
  }
  return round;
}

TEST(SequentialGate, AnAASessionSettlesNotSlower) {
  SequentialGate gate({0.05}, {});
  const int rounds = feed(gate, 1.0, 0.01, 1);
  ASSERT_TRUE(gate.done(0));
  EXPECT_EQ(gate.scenario(0).end, SequentialEnd::settled);
  const tb::SequentialRecord r = tb::sequential_record(gate, 0);
  EXPECT_EQ(r.verdict, "not slower");
  EXPECT_EQ(r.rounds, rounds);
  EXPECT_TRUE(r.valid);
  EXPECT_LT(r.high, 1 / 0.95);  // the whole interval excludes the gate's slowdown
  EXPECT_GT(r.looks, 0);
  EXPECT_DOUBLE_EQ(r.gate_pct, 5.0);
}

TEST(SequentialGate, APlantedSlowdownSettlesSlowerEarlyWhenQuiet) {
  SequentialGate gate({0.05}, {});
  const int rounds = feed(gate, 1.25, 0.01, 2);
  const tb::SequentialRecord r = tb::sequential_record(gate, 0);
  EXPECT_EQ(r.verdict, "slower");
  EXPECT_GT(r.low, 1 / 0.95);
  EXPECT_NEAR(r.ratio, 1.25, 0.02);
  // A 25% change at 1% noise needs no more than a few looks, not the whole budget.
  EXPECT_LT(rounds, gate.options().max_rounds);
}

// Between looks the gate only collects: the verdict is the last look's, taken at a planned count.
TEST(SequentialGate, LooksOnlyAtThePlannedRounds) {
  SequentialGateOptions o;
  o.first_look = 3;
  o.batch = 3;
  o.max_rounds = 12;
  SequentialGate gate({0.05}, o);
  std::mt19937 engine(3);
  std::normal_distribution<double> jitter(0.0, 0.08);  // too noisy to settle before the end
  for (int round = 0; round < 2; ++round) gate.add_round(0, round, segment(round, 0.1), segment(round, 0.1));
  EXPECT_FALSE(gate.scenario(0).decision.valid);  // no look before the third round
  gate.add_round(0, 2, segment(2, 0.1), segment(2, 0.1 * std::exp(jitter(engine))));
  if (!gate.done(0)) {
    EXPECT_EQ(gate.scenario(0).decision.look, 1);
    EXPECT_EQ(gate.scenario(0).decision.rounds, 3);
    gate.add_round(0, 3, segment(3, 0.1), segment(3, 0.1 * std::exp(jitter(engine))));
    EXPECT_EQ(gate.scenario(0).decision.rounds, 3);  // round 4 is no look: the interval stands
    EXPECT_EQ(gate.scenario(0).decision.next_look, 6);
  }
}

TEST(SequentialGate, AContendedRoundIsDroppedAndMeasuredAgain) {
  SequentialGate gate({0.05}, {});
  gate.add_round(0, 0, segment(0, 0.1), segment(0, 0.1));
  gate.add_round(0, 1, segment(1, 0.1), segment(1, 0.3, /*stolen=*/true));  // a burst of steal in NEW
  gate.add_round(0, 2, segment(2, 0.1), segment(2, 0.1005));
  // Three rounds measured, two clean: no look yet, and the spoiled ratio is nowhere.
  EXPECT_FALSE(gate.scenario(0).decision.valid);
  EXPECT_EQ(gate.scenario(0).contention.dropped, 1);
  gate.add_round(0, 3, segment(3, 0.1), segment(3, 0.0995));
  const auto& s = gate.scenario(0);
  ASSERT_TRUE(s.decision.valid);
  EXPECT_EQ(s.decision.rounds, 3);
  EXPECT_NEAR(s.decision.ratio, 1.0, 0.01);
  const tb::SequentialRecord r = tb::sequential_record(gate, 0);
  EXPECT_EQ(r.dropped, 1);
  EXPECT_EQ(r.measured, 4);
  EXPECT_NE(r.contention.find("round 2"), std::string::npos) << r.contention;
}

// The matrix's "contention" thresholds apply: a runner with a known steady load raises them, and
// its rounds are then clean.
TEST(SequentialGate, JudgesRoundsByTheScenariosContentionThresholds) {
  SequentialGate gate({0.05, 0.05}, {});
  tb::ContentionThresholds lenient;
  lenient.steal_fraction = 0.5;
  gate.set_contention(1, lenient);
  for (std::size_t i = 0; i < 2; ++i) gate.add_round(i, 0, segment(0, 0.1), segment(0, 0.1, /*stolen=*/true));
  EXPECT_EQ(gate.scenario(0).contention.dropped, 1);  // steal 20% against the default 5%
  EXPECT_EQ(gate.scenario(1).contention.dropped, 0);  // against 50%
}

TEST(SequentialGate, RefusesWhenContendedRoundsExceedAThirdOfTheBudget) {
  SequentialGateOptions o;
  o.max_rounds = 6;  // two contended rounds allowed
  SequentialGate gate({0.05}, o);
  for (int round = 0; round < 3; ++round) {
    gate.add_round(0, round, segment(round, 0.1, true), segment(round, 0.1));
    EXPECT_EQ(gate.done(0), round == 2) << round;
  }
  EXPECT_EQ(gate.scenario(0).end, SequentialEnd::refused);
  EXPECT_TRUE(gate.scenario(0).contention.refused);
  EXPECT_EQ(tb::sequential_record(gate, 0).verdict, "undecided");
}

TEST(SequentialGate, ClosingEarlyTakesALastLookAndSaysUndecided) {
  SequentialGate gate({0.05}, {});
  // A change right at the gate, noisy: not settled at the first looks.
  std::mt19937 engine(4);
  std::normal_distribution<double> jitter(0.0, 0.06);
  for (int round = 0; round < 4; ++round)
    gate.add_round(0, round, segment(round, 0.1), segment(round, 0.1 / 0.95 * std::exp(jitter(engine))));
  ASSERT_FALSE(gate.done(0));
  gate.close();  // --time-budget spent
  EXPECT_EQ(gate.scenario(0).end, SequentialEnd::budget);
  const tb::SequentialRecord r = tb::sequential_record(gate, 0);
  EXPECT_EQ(r.verdict, "undecided");
  EXPECT_EQ(r.end, "budget spent");
  EXPECT_EQ(r.rounds, 4);
  EXPECT_TRUE(r.valid);
  EXPECT_LT(r.low, 1 / 0.95);
  EXPECT_GT(r.high, 1 / 0.95);
  ASSERT_TRUE(r.rounds_to_settle.has_value());
  EXPECT_GT(*r.rounds_to_settle, 4);
}

TEST(SequentialGate, TheRoundLimitEndsAnUnsettledScenario) {
  SequentialGateOptions o;
  o.max_rounds = 9;
  SequentialGate gate({0.05}, o);
  const int rounds = feed(gate, 1 / 0.95, 0.05, 5);
  EXPECT_TRUE(gate.done(0));
  EXPECT_LE(rounds, gate.round_limit());
  if (gate.scenario(0).end == SequentialEnd::budget) { EXPECT_EQ(rounds, 9); }
}

TEST(SequentialGate, ASideThatStopsEndsTheScenarioAsBroken) {
  SequentialGate gate({0.05, 0.05}, {});
  Segment none;  // a side that measured nothing
  gate.add_round(0, 0, segment(0, 0.1), none);
  EXPECT_EQ(gate.scenario(0).end, SequentialEnd::broken);
  gate.stop(1);
  EXPECT_EQ(gate.scenario(1).end, SequentialEnd::broken);
}

TEST(SequentialGate, ScheduleRuleStartsAtTheFirstLookAndEndsAtTheRoundLimit) {
  SequentialGateOptions o;
  o.first_look = 4;
  o.max_rounds = 30;
  SequentialGate gate({0.05}, o);
  const tb::StoppingRule rule = gate.stopping_rule({});
  EXPECT_EQ(rule.rounds, 4);
  EXPECT_EQ(rule.max_rounds, 40);  // 30 clean + 10 contended allowed
  EXPECT_EQ(gate.round_limit(), 40);
}

// The k scenarios of a session share alpha: each design spends alpha / k.
TEST(SequentialGate, ScenariosShareTheFamilyWiseAlpha) {
  SequentialGate one({0.05}, {});
  SequentialGate four({0.05, 0.05, 0.05, 0.05}, {});
  EXPECT_DOUBLE_EQ(four.design().options.alpha, one.design().options.alpha / 4);
  EXPECT_GT(four.design().critical.back(), one.design().critical.back());
}

TEST(SequentialGate, RefusesOptionsOutOfRange) {
  EXPECT_THROW(SequentialGate({}, {}), std::invalid_argument);
  EXPECT_THROW(SequentialGate({1.5}, {}), std::invalid_argument);
  SequentialGateOptions share;
  share.max_contended_share = 1;
  EXPECT_THROW(SequentialGate({0.05}, share), std::invalid_argument);
  SequentialGateOptions looks;
  looks.first_look = 2;
  EXPECT_THROW(SequentialGate({0.05}, looks), std::invalid_argument);
}

}  // namespace
