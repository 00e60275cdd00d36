#include <trainbench/measure/stats.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace {

using namespace tb::stats;

std::vector<double> normal_samples(double mu, double rel_sigma, int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> dist(mu, mu * rel_sigma);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = std::max(dist(rng), mu * 0.01);
  return v;
}

TEST(Stats, PercentilesOnKnownVector) {
  const std::vector<double> v = {5, 1, 4, 2, 3};  // sorted: 1 2 3 4 5
  EXPECT_DOUBLE_EQ(median(v), 3.0);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 5.0);
  EXPECT_DOUBLE_EQ(percentile(v, 25), 2.0);
  EXPECT_DOUBLE_EQ(percentile(v, 10), 1.4);  // pos 0.4 between 1 and 2
  EXPECT_DOUBLE_EQ(percentile(v, 95), 4.8);
  EXPECT_DOUBLE_EQ(mean(v), 3.0);
  EXPECT_NEAR(stddev(v), std::sqrt(2.5), 1e-12);
  const std::vector<double> even = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(even), 2.5);
}

TEST(Stats, EmptyInputsThrowOrGiveZeroDistribution) {
  const std::vector<double> empty;
  EXPECT_THROW(median(empty), std::invalid_argument);
  EXPECT_THROW(percentile(empty, 50), std::invalid_argument);
  const auto d = summarize(empty);
  EXPECT_EQ(d.n, 0u);
  EXPECT_TRUE(std::isinf(relative_ci_halfwidth(d)));
}

TEST(Stats, SummarizeFillsEveryField) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const auto d = summarize(v);
  EXPECT_EQ(d.n, 100u);
  EXPECT_DOUBLE_EQ(d.median, 50.5);
  EXPECT_DOUBLE_EQ(d.mean, 50.5);
  EXPECT_DOUBLE_EQ(d.min, 1);
  EXPECT_DOUBLE_EQ(d.max, 100);
  EXPECT_DOUBLE_EQ(d.p5, 5.95);
  EXPECT_DOUBLE_EQ(d.p25, 25.75);
  EXPECT_DOUBLE_EQ(d.p75, 75.25);
  EXPECT_DOUBLE_EQ(d.p95, 95.05);
  EXPECT_DOUBLE_EQ(d.p99, 99.01);
  EXPECT_NEAR(d.stddev, 29.011491975882016, 1e-9);
  // Exact binomial interval for n = 100: ranks 40 and 61 (coverage 96.5%).
  EXPECT_DOUBLE_EQ(d.ci_low, 40);
  EXPECT_DOUBLE_EQ(d.ci_high, 61);
  EXPECT_NEAR(relative_ci_halfwidth(d), 10.5 / 50.5, 1e-12);
}

TEST(Stats, MedianIntervalSmallSamplesFallBackToRange) {
  const std::vector<double> five = {1, 2, 3, 4, 5};
  const auto ci = median_interval(five);
  EXPECT_DOUBLE_EQ(ci.low, 1);
  EXPECT_DOUBLE_EQ(ci.high, 5);
  const std::vector<double> six = {1, 2, 3, 4, 5, 6};  // 2 * 2^-6 = 3.1% -> ranks 1 and 6
  const auto ci6 = median_interval(six);
  EXPECT_DOUBLE_EQ(ci6.low, 1);
  EXPECT_DOUBLE_EQ(ci6.high, 6);
  std::vector<double> nine;
  for (int i = 1; i <= 9; ++i) nine.push_back(i);  // P(B<=1) = 10/512 ~ 2% -> ranks 2 and 8
  const auto ci9 = median_interval(nine);
  EXPECT_DOUBLE_EQ(ci9.low, 2);
  EXPECT_DOUBLE_EQ(ci9.high, 8);
}

TEST(Stats, MedianIntervalCoversTrueMedianAbout95Percent) {
  int covered = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    const auto v = normal_samples(10.0, 0.1, 30, static_cast<std::uint32_t>(1000 + t));
    const auto d = summarize(v);
    if (d.ci_low <= 10.0 && d.ci_high >= 10.0) ++covered;
  }
  EXPECT_GE(covered, static_cast<int>(0.92 * trials));
}

TEST(Stats, BootstrapIntervalContainsTrueRatioAndIsDeterministic) {
  const auto base = normal_samples(10.0, 0.03, 200, 1);
  const auto cand = normal_samples(8.0, 0.03, 200, 2);  // true speedup 1.25
  const auto r = bootstrap_ratio_of_medians(base, cand, 2000, 0.95, 7);
  EXPECT_LE(r.low, 1.25);
  EXPECT_GE(r.high, 1.25);
  EXPECT_LE(r.low, r.ratio);
  EXPECT_GE(r.high, r.ratio);
  EXPECT_LT(r.high - r.low, 0.05);
  const auto again = bootstrap_ratio_of_medians(base, cand, 2000, 0.95, 7);
  EXPECT_DOUBLE_EQ(r.low, again.low);
  EXPECT_DOUBLE_EQ(r.high, again.high);
  EXPECT_EQ(classify(r), Verdict::faster);
}

TEST(Stats, BootstrapRejectsBadInput) {
  const std::vector<double> empty, one = {1.0}, zero = {0.0};
  EXPECT_THROW(bootstrap_ratio_of_medians(empty, one), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio_of_medians(one, zero), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio_of_medians(one, one, 0), std::invalid_argument);
}

TEST(Stats, IdenticalInputsAreSame) {
  const auto v = normal_samples(5.0, 0.01, 50, 3);
  const auto r = bootstrap_ratio_of_medians(v, v);
  EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  EXPECT_EQ(classify(r), Verdict::same);
  // Two independent draws of the same distribution (an A/A pair) are also "same".
  const auto w = normal_samples(5.0, 0.01, 50, 4);
  EXPECT_EQ(classify(bootstrap_ratio_of_medians(v, w)), Verdict::same);
}

TEST(Stats, IdenticalButNoisyInputsAreNoisyNotSame) {
  // 5% noise, n = 50: the median's interval alone is ~+-2.5%, wider than the 2% band, so the
  // honest answer is "cannot tell", even though the samples are identical.
  const auto v = normal_samples(5.0, 0.05, 50, 3);
  const auto r = bootstrap_ratio_of_medians(v, v);
  EXPECT_EQ(classify(r), Verdict::noisy);
  EXPECT_EQ(classify(r, 0.05), Verdict::same);
}

TEST(Stats, PlantedTenPercentSlowdownIsSlower) {
  const auto base = normal_samples(10.0, 0.01, 40, 11);
  const auto cand = normal_samples(11.0, 0.01, 40, 12);
  const auto r = bootstrap_ratio_of_medians(base, cand);
  EXPECT_NEAR(r.ratio, 10.0 / 11.0, 0.01);
  EXPECT_LT(r.high, 1.0);
  EXPECT_EQ(classify(r), Verdict::slower);
}

TEST(Stats, NoisySmallSamplesAreNoisy) {
  const auto base = normal_samples(10.0, 0.3, 6, 21);
  const auto cand = normal_samples(10.0, 0.3, 6, 22);
  const auto r = bootstrap_ratio_of_medians(base, cand);
  EXPECT_LE(r.low, 1.0);
  EXPECT_GE(r.high, 1.0);
  EXPECT_EQ(classify(r), Verdict::noisy);
}

TEST(Stats, ClassifyRules) {
  EXPECT_EQ(classify({1.10, 1.05, 1.15}), Verdict::faster);
  EXPECT_EQ(classify({1.01, 1.005, 1.015}), Verdict::same);  // significant but negligible
  EXPECT_EQ(classify({0.90, 0.85, 0.95}), Verdict::slower);
  EXPECT_EQ(classify({0.99, 0.985, 0.995}), Verdict::same);
  EXPECT_EQ(classify({1.00, 0.99, 1.01}), Verdict::same);
  EXPECT_EQ(classify({1.00, 0.90, 1.10}), Verdict::noisy);
  EXPECT_STREQ(to_string(Verdict::noisy), "noisy");
  EXPECT_STREQ(to_string(Verdict::faster), "faster");
}

TEST(Stats, GeometricMeanPropagatesLogIntervals) {
  const std::vector<RatioInterval> rs = {{2.0, 2.0, 2.0}, {0.5, 0.5, 0.5}};
  const auto g = geometric_mean(rs);
  EXPECT_NEAR(g.ratio, 1.0, 1e-12);
  EXPECT_NEAR(g.low, 1.0, 1e-12);
  EXPECT_NEAR(g.high, 1.0, 1e-12);

  // Two equal log half-widths h: combined half-width sqrt(2) h / 2.
  const double h = std::log(1.1);
  const std::vector<RatioInterval> wide = {{1.0, 1.0 / 1.1, 1.1}, {1.0, 1.0 / 1.1, 1.1}};
  const auto gw = geometric_mean(wide);
  EXPECT_NEAR(std::log(gw.high), std::sqrt(2.0) * h / 2.0, 1e-12);
  EXPECT_NEAR(std::log(gw.low), -std::sqrt(2.0) * h / 2.0, 1e-12);
  EXPECT_THROW(geometric_mean(std::vector<RatioInterval>{}), std::invalid_argument);
}

}  // namespace
