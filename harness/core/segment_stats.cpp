#include "harness/core/segment_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace tb::stats {

namespace {

// Student t 0.975 quantiles (two-sided 95%) for df = 1..30, then 40, 60, 120, infinity.
constexpr std::array<std::pair<double, double>, 34> kT975 = {{
    {1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},  {5, 2.571},  {6, 2.447},  {7, 2.365},
    {8, 2.306},  {9, 2.262},  {10, 2.228}, {11, 2.201}, {12, 2.179}, {13, 2.160}, {14, 2.145},
    {15, 2.131}, {16, 2.120}, {17, 2.110}, {18, 2.101}, {19, 2.093}, {20, 2.086}, {21, 2.080},
    {22, 2.074}, {23, 2.069}, {24, 2.064}, {25, 2.060}, {26, 2.056}, {27, 2.052}, {28, 2.048},
    {29, 2.045}, {30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {1e300, 1.960},
}};

struct LogMoments {
  double mean = 0, var = 0;  // sample variance (n - 1)
  std::size_t n = 0;
};

LogMoments log_moments(std::span<const double> values) {
  LogMoments m;
  m.n = values.size();
  if (m.n == 0) return m;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument("segment medians must be positive");
    m.mean += std::log(v);
  }
  m.mean /= static_cast<double>(m.n);
  if (m.n < 2) return m;
  for (double v : values) m.var += (std::log(v) - m.mean) * (std::log(v) - m.mean);
  m.var /= static_cast<double>(m.n - 1);
  return m;
}

RatioInterval around(double ratio, double half_width_log) {
  RatioInterval r;
  r.ratio = ratio;
  r.low = ratio * std::exp(-half_width_log);
  r.high = ratio * std::exp(half_width_log);
  r.valid = true;
  return r;
}

RatioInterval point_only(double ratio) {
  RatioInterval r;
  r.ratio = r.low = r.high = ratio;
  r.valid = false;
  return r;
}

}  // namespace

double t_quantile_975(double df) {
  if (!(df > 0)) throw std::invalid_argument("t_quantile_975: df must be > 0");
  if (df <= 1) return kT975.front().second;
  for (std::size_t i = 1; i < kT975.size(); ++i) {
    const auto [d1, t1] = kT975[i];
    if (df > d1) continue;
    const auto [d0, t0] = kT975[i - 1];
    if (df == d1) return t1;
    // Linear in 1/df: exact at the table's points, within 0.2% between them.
    const double x = (1.0 / df - 1.0 / d1) / (1.0 / d0 - 1.0 / d1);
    return t1 + (t0 - t1) * x;
  }
  return kT975.back().second;
}

SegmentInterval median_interval_from_segments(double center, std::span<const double> segment_medians,
                                              const std::string& method) {
  SegmentInterval out;
  out.segments = segment_medians.size();
  out.method = "none";
  if (segment_medians.size() < kMinSegments || !(center > 0)) return out;
  const auto m = log_moments(segment_medians);
  const double n = static_cast<double>(m.n);
  const double hw = t_quantile_975(n - 1) * std::sqrt(m.var / n);
  out.low = center * std::exp(-hw);
  out.high = center * std::exp(hw);
  out.valid = true;
  out.method = method;
  return out;
}

std::vector<double> batch_medians(std::span<const double> steps) {
  std::vector<double> out;
  if (steps.size() < 2 * kBatchMeansBlocks) return out;
  const std::size_t n = steps.size();
  for (std::size_t b = 0; b < kBatchMeansBlocks; ++b) {
    const std::size_t from = b * n / kBatchMeansBlocks, to = (b + 1) * n / kBatchMeansBlocks;
    out.push_back(median(steps.subspan(from, to - from)));
  }
  return out;
}

std::vector<double> replicates(std::span<const double> steps, std::span<const double> segment_medians) {
  if (segment_medians.size() >= kMinSegments)
    return std::vector<double>(segment_medians.begin(), segment_medians.end());
  // One or two segments: too few replicates, and batch means of one block would not see the
  // drift between scenarios, so no interval. Batch means only stand in for results files
  // written before segments existed.
  if (!segment_medians.empty()) return {};
  return batch_medians(steps);
}

Distribution summarize_segmented(std::span<const double> steps, std::span<const double> segment_medians) {
  Distribution d = summarize(steps);
  d.ci_low = d.ci_high = 0;
  d.ci_method = "none";
  d.ci_replicates = 0;
  if (d.n == 0) return d;
  const bool from_segments = segment_medians.size() >= kMinSegments;
  const auto reps = replicates(steps, segment_medians);
  const auto ci =
      median_interval_from_segments(d.median, reps, from_segments ? "segments" : "batch-means");
  if (!ci.valid) return d;
  d.ci_low = ci.low;
  d.ci_high = ci.high;
  d.ci_method = ci.method;
  d.ci_replicates = ci.segments;
  return d;
}

RatioInterval paired_ratio_interval(double ratio, std::span<const double> baseline,
                                    std::span<const double> candidate) {
  if (baseline.size() != candidate.size())
    throw std::invalid_argument("paired_ratio_interval: segment counts differ");
  if (baseline.size() < kMinSegments || !(ratio > 0)) return point_only(ratio);
  std::vector<double> d;
  for (std::size_t j = 0; j < baseline.size(); ++j) {
    if (!(baseline[j] > 0 && candidate[j] > 0))
      throw std::invalid_argument("segment medians must be positive");
    d.push_back(std::log(baseline[j]) - std::log(candidate[j]));
  }
  const double n = static_cast<double>(d.size());
  double mean = 0, var = 0;
  for (double x : d) mean += x;
  mean /= n;
  for (double x : d) var += (x - mean) * (x - mean);
  var /= n - 1;
  return around(ratio, t_quantile_975(n - 1) * std::sqrt(var / n));
}

RatioInterval welch_ratio_interval(double ratio, std::span<const double> a, std::span<const double> b) {
  if (a.size() < kMinSegments || b.size() < kMinSegments || !(ratio > 0)) return point_only(ratio);
  const auto ma = log_moments(a), mb = log_moments(b);
  const double va = ma.var / static_cast<double>(ma.n), vb = mb.var / static_cast<double>(mb.n);
  const double se2 = va + vb;
  if (se2 <= 0) return around(ratio, 0.0);
  // Welch-Satterthwaite degrees of freedom.
  const double df = se2 * se2 / (va * va / static_cast<double>(ma.n - 1) +
                                 vb * vb / static_cast<double>(mb.n - 1));
  return around(ratio, t_quantile_975(df) * std::sqrt(se2));
}

}  // namespace tb::stats
