// Intervals from segments: exact t quantiles, no interval below three segments (never a [min,
// max] labelled 95%), paired and Welch ratios, and the coverage the README claims, checked by
// simulation against segment medians that drift.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <trainbench/measure/segment_stats.hpp>
#include <trainbench/measure/stats.hpp>

namespace {

using namespace tb::stats;

TEST(SegmentStats, TQuantilesMatchTheTable) {
  EXPECT_NEAR(t_quantile_975(1), 12.706, 1e-3);
  EXPECT_NEAR(t_quantile_975(5), 2.571, 1e-3);
  EXPECT_NEAR(t_quantile_975(30), 2.042, 1e-3);
  EXPECT_NEAR(t_quantile_975(1e9), 1.960, 1e-3);
  // Between table points (Welch's fractional df): between the neighbours, decreasing.
  const double t = t_quantile_975(4.5);
  EXPECT_LT(t, t_quantile_975(4));
  EXPECT_GT(t, t_quantile_975(5));
  EXPECT_NEAR(t_quantile_975(45), 2.014, 2e-3);  // scipy: 2.0141
  EXPECT_THROW(t_quantile_975(0), std::invalid_argument);
}

TEST(SegmentStats, GeneralTQuantilesMatchScipy) {
  // scipy.stats.t.ppf
  EXPECT_NEAR(t_quantile(0.996875, 7), 3.855, 0.01);
  EXPECT_NEAR(t_quantile(0.996875, 14), 3.214, 0.01);
  EXPECT_NEAR(t_quantile(0.99, 5), 3.365, 0.01);
  EXPECT_NEAR(t_quantile(0.975, 7), 2.365, 1e-3);
  EXPECT_THROW(t_quantile(0.3, 5), std::invalid_argument);
}

TEST(SegmentStats, NoIntervalBelowThreeSegments) {
  const std::vector<double> two = {1.0, 1.1};
  EXPECT_FALSE(median_interval_from_segments(1.05, two).valid);
  const std::vector<double> three = {1.0, 1.1, 1.05};
  const auto ci = median_interval_from_segments(1.05, three);
  ASSERT_TRUE(ci.valid);
  EXPECT_LT(ci.low, 1.05);
  EXPECT_GT(ci.high, 1.05);
  EXPECT_EQ(ci.segments, 3u);
}

// "What was seen" 2: steps.min = 1 printed ±0.000 and a [min, max] labelled 95%.
TEST(SegmentStats, OneOrTwoStepsNeverGetA95Interval) {
  const std::vector<double> one = {0.01};
  const auto d1 = summarize_segmented(one, one);
  EXPECT_FALSE(d1.has_interval());
  EXPECT_EQ(d1.ci_method, "none");
  const std::vector<double> five = {1, 2, 3, 4, 5};
  EXPECT_FALSE(median_interval(five).valid);
  EXPECT_FALSE(summarize(five).has_interval());
  // A speedup without replicates: point only, verdict noisy (never "slower" on nothing).
  const auto r = paired_ratio_interval(0.95, one, one);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(classify(r), Verdict::noisy);
}

TEST(SegmentStats, OneOrTwoSegmentsGiveNoIntervalButLegacyFilesUseBatchMeans) {
  std::vector<double> steps(40, 0.01);
  for (std::size_t i = 0; i < steps.size(); ++i) steps[i] += 1e-4 * static_cast<double>(i % 7);
  const std::vector<double> one_segment = {0.0103};
  EXPECT_FALSE(summarize_segmented(steps, one_segment).has_interval());
  const auto legacy = summarize_segmented(steps, {});
  EXPECT_TRUE(legacy.has_interval());
  EXPECT_EQ(legacy.ci_method, "batch-means");
  EXPECT_EQ(legacy.ci_replicates, kBatchMeansBlocks);
}

TEST(SegmentStats, PairedCancelsCommonDrift) {
  // Both scenarios slow down together in rounds 3 and 4 (another job on the machine): the
  // paired ratio stays tight, the unpaired one widens.
  const std::vector<double> base = {10, 10.1, 13, 13.2, 10, 10.05};
  std::vector<double> cand;
  for (double b : base) cand.push_back(b / 1.5);
  const double ratio = 1.5;
  const auto paired = paired_ratio_interval(ratio, base, cand);
  const auto welch = welch_ratio_interval(ratio, base, cand);
  ASSERT_TRUE(paired.valid);
  ASSERT_TRUE(welch.valid);
  EXPECT_LT(paired.high - paired.low, 1e-9);
  EXPECT_GT(welch.high - welch.low, 0.2);
  EXPECT_EQ(classify(paired), Verdict::faster);
}

TEST(SegmentStats, PairedNeedsEqualCounts) {
  const std::vector<double> a = {1, 1, 1}, b = {1, 1};
  EXPECT_THROW(paired_ratio_interval(1.0, a, b), std::invalid_argument);
}

// The claim behind "95%": segment medians that drift (log-normal, sd 5%) around a true value;
// over many simulated runs the interval contains the true median about 95% of the time, and
// two runs of the same thing are called different about 5% of the time.
TEST(SegmentStats, CoverageOfSimulatedDriftingRunsIsNominal) {
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> drift(0.0, 0.05);
  const double truth = 0.010;
  int covered = 0, aa_different = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a, b;
    for (int j = 0; j < 6; ++j) a.push_back(truth * std::exp(drift(rng)));
    for (int j = 0; j < 6; ++j) b.push_back(truth * std::exp(drift(rng)));
    // Centre on the geometric mean of the segments, as the median of all steps would be.
    double la = 0, lb = 0;
    for (double x : a) la += std::log(x) / 6;
    for (double x : b) lb += std::log(x) / 6;
    const auto ci = median_interval_from_segments(std::exp(la), a);
    covered += (ci.low <= truth && truth <= ci.high) ? 1 : 0;
    const auto w = welch_ratio_interval(std::exp(la - lb), a, b);
    aa_different += (w.low > 1 || w.high < 1) ? 1 : 0;
  }
  const double coverage = static_cast<double>(covered) / trials;
  const double false_alarm = static_cast<double>(aa_different) / trials;
  EXPECT_GT(coverage, 0.93);
  EXPECT_LT(coverage, 0.97);
  EXPECT_LT(false_alarm, 0.07);
}

}  // namespace
