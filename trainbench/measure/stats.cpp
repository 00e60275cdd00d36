#include <trainbench/measure/stats.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tb::stats {

namespace {

void require_nonempty(std::span<const double> samples, const char* what) {
  if (samples.empty()) throw std::invalid_argument(std::string(what) + ": empty sample");
}

std::vector<double> sorted_copy(std::span<const double> samples) {
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  return v;
}

// Percentile of an already sorted sample.
double sorted_percentile(std::span<const double> sorted, double q) {
  const double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

// Median of a scratch buffer (reordered in place): O(n) selection, used in bootstrap loops.
double median_in_place(std::vector<double>& v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

// Uniform index in [0, n) from a 64-bit draw; the modulo bias (< n / 2^64) is negligible.
std::size_t draw_index(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

void resample_into(std::span<const double> src, std::vector<double>& dst, std::mt19937_64& rng) {
  dst.resize(src.size());
  for (auto& x : dst) x = src[draw_index(rng, src.size())];
}

}  // namespace

double median(std::span<const double> samples) {
  require_nonempty(samples, "median");
  std::vector<double> v(samples.begin(), samples.end());
  return median_in_place(v);
}

double percentile(std::span<const double> samples, double q) {
  require_nonempty(samples, "percentile");
  const auto v = sorted_copy(samples);
  return sorted_percentile(v, q);
}

double mean(std::span<const double> samples) {
  require_nonempty(samples, "mean");
  return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

double stddev(std::span<const double> samples) {
  require_nonempty(samples, "stddev");
  if (samples.size() < 2) return 0.0;
  const double m = mean(samples);
  double ss = 0;
  for (double x : samples) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(samples.size() - 1));
}

MedianInterval median_interval(std::span<const double> sorted) {
  require_nonempty(sorted, "median_interval");
  const std::size_t n = sorted.size();
  // Coverage of [x_(r), x_(n+1-r)] is 1 - 2 * P(B <= r - 1) with B ~ Binomial(n, 1/2).
  // Find the largest r with P(B <= r - 1) <= 2.5%.
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  const double lgamma_n1 = std::lgamma(static_cast<double>(n) + 1.0);
  double cdf = 0;
  std::size_t r = 0;  // 1-based rank; 0 = no pair reaches 95%
  for (std::size_t k = 0; k < n / 2; ++k) {
    const double kd = static_cast<double>(k);
    cdf += std::exp(lgamma_n1 - std::lgamma(kd + 1.0) - std::lgamma(static_cast<double>(n) - kd + 1.0) + log_half_n);
    if (cdf > 0.025) break;
    r = k + 1;
  }
  if (r == 0) return {sorted.front(), sorted.back(), false};
  return {sorted[r - 1], sorted[n - r], true};
}

Distribution summarize(std::span<const double> samples, std::uint64_t /*seed*/) {
  Distribution d;
  if (samples.empty()) return d;
  const auto v = sorted_copy(samples);
  d.n = v.size();
  d.median = sorted_percentile(v, 50);
  d.mean = mean(v);
  d.stddev = stddev(v);
  d.min = v.front();
  d.max = v.back();
  d.p5 = sorted_percentile(v, 5);
  d.p25 = sorted_percentile(v, 25);
  d.p75 = sorted_percentile(v, 75);
  d.p95 = sorted_percentile(v, 95);
  d.p99 = sorted_percentile(v, 99);
  const auto ci = median_interval(v);
  if (ci.valid) {
    d.ci_low = ci.low;
    d.ci_high = ci.high;
    d.ci_method = "steps";
    d.ci_replicates = v.size();
  }
  return d;
}

double relative_ci_halfwidth(const Distribution& d) {
  if (d.n == 0 || d.median == 0) return std::numeric_limits<double>::infinity();
  return (d.ci_high - d.ci_low) / 2.0 / std::abs(d.median);
}

RatioInterval bootstrap_ratio_of_medians(std::span<const double> baseline, std::span<const double> candidate,
                                         int resamples, double confidence, std::uint64_t seed) {
  require_nonempty(baseline, "bootstrap_ratio_of_medians (baseline)");
  require_nonempty(candidate, "bootstrap_ratio_of_medians (candidate)");
  if (resamples < 1) throw std::invalid_argument("bootstrap_ratio_of_medians: resamples < 1");
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("bootstrap_ratio_of_medians: confidence must be in (0, 1)");
  const double base_median = median(baseline);
  const double cand_median = median(candidate);
  if (!(base_median > 0 && cand_median > 0))
    throw std::invalid_argument("bootstrap_ratio_of_medians: medians must be positive");

  std::mt19937_64 rng(seed);
  std::vector<double> ratios(static_cast<std::size_t>(resamples));
  std::vector<double> b, c;
  for (auto& ratio : ratios) {
    resample_into(baseline, b, rng);
    resample_into(candidate, c, rng);
    const double cm = median_in_place(c);
    // A zero resampled candidate median (samples containing zeros) counts as "infinitely
    // faster" without producing inf/NaN in the sorted ratios.
    ratio = cm > 0 ? median_in_place(b) / cm : std::numeric_limits<double>::max();
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - confidence) / 2.0 * 100.0;
  RatioInterval out;
  out.ratio = base_median / cand_median;
  out.low = std::min(sorted_percentile(ratios, tail), out.ratio);
  out.high = std::max(sorted_percentile(ratios, 100.0 - tail), out.ratio);
  return out;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same";
    case Verdict::noisy: return "noisy";
  }
  return "noisy";
}

Verdict classify(const RatioInterval& r, double same_threshold) {
  if (!r.valid) return Verdict::noisy;
  const double band_low = 1.0 - same_threshold;
  const double band_high = 1.0 + same_threshold;
  if (r.low > 1.0) return r.ratio > band_high ? Verdict::faster : Verdict::same;
  if (r.high < 1.0) return r.ratio < band_low ? Verdict::slower : Verdict::same;
  if (r.low >= band_low && r.high <= band_high) return Verdict::same;
  return Verdict::noisy;
}

RatioInterval geometric_mean(std::span<const RatioInterval> ratios) {
  if (ratios.empty()) throw std::invalid_argument("geometric_mean: no ratios");
  double sum_log = 0, sum_lower_sq = 0, sum_upper_sq = 0;
  bool valid = true;
  for (const auto& r : ratios) {
    valid = valid && r.valid;
    if (!(r.ratio > 0 && r.low > 0 && r.high > 0))
      throw std::invalid_argument("geometric_mean: ratios must be positive");
    const double lr = std::log(r.ratio);
    sum_log += lr;
    const double lower = lr - std::log(std::min(r.low, r.ratio));
    const double upper = std::log(std::max(r.high, r.ratio)) - lr;
    sum_lower_sq += lower * lower;
    sum_upper_sq += upper * upper;
  }
  const double k = static_cast<double>(ratios.size());
  const double center = sum_log / k;
  if (!valid) return {std::exp(center), std::exp(center), std::exp(center), false};
  return {std::exp(center), std::exp(center - std::sqrt(sum_lower_sq) / k),
          std::exp(center + std::sqrt(sum_upper_sq) / k), true};
}

}  // namespace tb::stats
