// The stopping criterion of the matrix's `steps` section: how long a segment measures (its step
// bounds and time budget, split over the rounds) and when a scenario's interval is good enough.
#include <trainbench/runner/stopping_criterion.hpp>

#include <gtest/gtest.h>

namespace {

using tb::Distribution;
using tb::IntervalStoppingCriterion;
using tb::StoppingRule;

StoppingRule rule(int min_steps, int max_steps, double budget_s, int rounds, double target = 0.02) {
  StoppingRule r;
  r.min_steps = min_steps;
  r.max_steps = max_steps;
  r.time_budget_s = budget_s;
  r.rounds = rounds;
  r.target_rel_ci = target;
  return r;
}

Distribution timing(double median, double low, double high) {
  Distribution d;
  d.n = 30;
  d.median = median;
  d.ci_low = low;
  d.ci_high = high;
  d.ci_method = "segments";
  return d;
}

TEST(StoppingCriterion, SegmentsSplitTheStepBoundsAndBudgetOverTheRounds) {
  const IntervalStoppingCriterion c(rule(10, 100, 6.0, 6));
  EXPECT_EQ(c.segment_min_steps(), 2);   // ceil(10 / 6)
  EXPECT_EQ(c.segment_max_steps(), 17);  // ceil(100 / 6)
  EXPECT_DOUBLE_EQ(c.segment_budget_s(), 1.0);
  EXPECT_FALSE(c.segment_done(0, 0));
  EXPECT_FALSE(c.segment_done(1, 5.0));   // over budget but under the minimum: one more step
  EXPECT_TRUE(c.segment_done(2, 1.0));    // minimum reached and budget spent
  EXPECT_FALSE(c.segment_done(16, 0.5));  // fast steps go on to the maximum
  EXPECT_TRUE(c.segment_done(17, 0.5));
}

TEST(StoppingCriterion, DegenerateRulesStillMeasureAtLeastOneStep) {
  const IntervalStoppingCriterion zero_rounds(rule(0, 0, 0.0, 0));
  EXPECT_EQ(zero_rounds.segment_min_steps(), 1);
  EXPECT_EQ(zero_rounds.segment_max_steps(), 1);
  EXPECT_FALSE(zero_rounds.segment_done(0, 0));
  EXPECT_TRUE(zero_rounds.segment_done(1, 0));
  // A maximum below the minimum is raised to it.
  const IntervalStoppingCriterion inverted(rule(12, 4, 1.0, 2));
  EXPECT_EQ(inverted.segment_max_steps(), inverted.segment_min_steps());
}

TEST(StoppingCriterion, ConvergedWhenTheIntervalIsWithinTheTarget) {
  const IntervalStoppingCriterion c(rule(10, 100, 6.0, 6, 0.02));
  const Distribution tight = timing(10.0, 9.9, 10.1);  // +-1%
  const Distribution wide = timing(10.0, 9.0, 11.0);   // +-10%
  Distribution none = timing(10.0, 0, 0);
  none.ci_method = "none";
  EXPECT_TRUE(c.converged(tight));
  EXPECT_STREQ(c.stop_reason(tight), "converged");
  EXPECT_FALSE(c.converged(wide));
  EXPECT_STREQ(c.stop_reason(wide), "rounds");
  EXPECT_FALSE(c.converged(none));
  EXPECT_STREQ(c.stop_reason(none), "no_interval");
}

TEST(StoppingCriterion, FactoryGivesTheIntervalRule) {
  const auto c = tb::make_stopping_criterion(rule(10, 100, 6.0, 6));
  EXPECT_NE(dynamic_cast<const IntervalStoppingCriterion*>(c.get()), nullptr);
  EXPECT_TRUE(c->segment_done(17, 0));
}

}  // namespace
