// Robust statistics for step-time samples: percentiles, a distribution-free interval of the
// median, bootstrap intervals of speedups and verdicts that respect measurement noise.
//
// All functions are deterministic: randomised ones take an explicit seed and use their own
// index mapping (not std::uniform_int_distribution) so results match across standard libraries.
#pragma once
#include <cstdint>
#include <span>

#include <trainbench/results/results.hpp>

namespace tb::stats {

// Each of these throws std::invalid_argument on an empty sample.
double median(std::span<const double> samples);
// q in [0, 100]; linear interpolation between order statistics (numpy's default "linear").
double percentile(std::span<const double> samples, double q);
double mean(std::span<const double> samples);
// Sample standard deviation (n - 1 denominator); 0 for a single sample.
double stddev(std::span<const double> samples);

// 95% interval of the median from order statistics: [x_(r), x_(n+1-r)] with the largest rank r
// whose exact binomial(n, 1/2) coverage is still >= 95%. Distribution-free and O(n log n), so
// cheap enough for a stopping rule evaluated after every step. For n <= 5 no pair of order
// statistics reaches 95%: the result is then [min, max] with valid = false (its coverage is only
// 1 - 2^(1-n)), never to be labelled 95%. It sees step-to-step jitter only, not drift: scenario
// intervals come from segment_stats.hpp.
struct MedianInterval {
  double low = 0, high = 0;
  bool valid = false;
};
MedianInterval median_interval(std::span<const double> sorted_samples);

// Every field of Distribution, the steps-only interval of the median included (ci_method
// "steps", or "none" below 6 samples). An empty sample gives a zero Distribution with n = 0. `seed` is accepted for API stability only: the order-statistic
// interval needs no randomness, so the result does not depend on it.
Distribution summarize(std::span<const double> samples, std::uint64_t seed = 1);

// (ci_high - ci_low) / 2 / median; infinity when the median is 0 or n == 0.
double relative_ci_halfwidth(const Distribution& d);

// A ratio with its confidence interval. For speedups: ratio = median(baseline)/median(candidate)
// so > 1 means the candidate is faster.
struct RatioInterval {
  double ratio = 1, low = 1, high = 1;
  // false: too few replicates for a 95% interval; low == high == ratio then, and verdicts
  // built on it are "noisy" (no claim either way).
  bool valid = true;
};

// Percentile-bootstrap interval of median(baseline) / median(candidate): both samples are
// resampled independently `resamples` times. Deterministic given `seed`. Throws
// std::invalid_argument on an empty sample or non-positive medians.
RatioInterval bootstrap_ratio_of_medians(std::span<const double> baseline, std::span<const double> candidate,
                                         int resamples = 2000, double confidence = 0.95, std::uint64_t seed = 1);

enum class Verdict { faster, slower, same, noisy };
const char* to_string(Verdict v);

// Verdict of a speedup interval (ratio = baseline / candidate), with a practical-equivalence
// band [1 - same_threshold, 1 + same_threshold]:
//   low > 1 (significantly faster):  "faster" if ratio > 1 + threshold, else "same"
//   high < 1 (significantly slower): "slower" if ratio < 1 - threshold, else "same"
//   interval contains 1:             "same" if it lies inside the band, else "noisy"
//   no valid interval:               "noisy"
// A significant but negligible change is "same": it would not matter to anybody.
Verdict classify(const RatioInterval& r, double same_threshold = 0.02);

// Geometric mean of speedups with an interval. The point is exp(mean(log ratio_i)). The interval
// propagates each scenario's log-space half-widths (lower and upper separately, as the
// bootstrap intervals are asymmetric) assuming independent scenarios:
//   half_width = sqrt(sum_i hw_i^2) / k   in log space,
// which is what a normal approximation gives (the z value cancels, so the intervals must share
// one confidence level). Invalid if any input is. Throws std::invalid_argument on an empty input or a non-positive value.
RatioInterval geometric_mean(std::span<const RatioInterval> ratios);

}  // namespace tb::stats
