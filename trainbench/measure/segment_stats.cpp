#include <trainbench/measure/segment_stats.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace tb::stats {

namespace {

// Student t 0.975 quantiles (two-sided 95%) for df = 1..30, then 40, 60, 120, infinity.
constexpr std::array<std::pair<double, double>, 34> kT975 = {{
    {1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},  {5, 2.571},   {6, 2.447},     {7, 2.365},
    {8, 2.306},  {9, 2.262},  {10, 2.228}, {11, 2.201}, {12, 2.179},  {13, 2.160},    {14, 2.145},
    {15, 2.131}, {16, 2.120}, {17, 2.110}, {18, 2.101}, {19, 2.093},  {20, 2.086},    {21, 2.080},
    {22, 2.074}, {23, 2.069}, {24, 2.064}, {25, 2.060}, {26, 2.056},  {27, 2.052},    {28, 2.048},
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

namespace {

// Acklam's approximation of the standard normal quantile (relative error < 1.2e-9).
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace

double t_quantile(double p, double df) {
  if (!(df > 0) || !(p > 0.5 && p < 1)) throw std::invalid_argument("t_quantile: bad arguments");
  if (std::abs(p - 0.975) < 1e-12) return t_quantile_975(df);
  const double z = normal_quantile(p);
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df * df * df) +
         (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df * df * df * df);
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

double segment_center(std::span<const double> segment_medians) {
  if (segment_medians.empty()) return 0;
  return std::exp(log_moments(segment_medians).mean);
}

Distribution summarize_segmented(std::span<const double> steps, std::span<const double> segment_medians) {
  Distribution d = summarize(steps);
  d.ci_low = d.ci_high = 0;
  d.ci_method = "none";
  d.ci_replicates = 0;
  if (d.n == 0) return d;
  d.median_all_steps = d.median;
  // Segments run for a time budget, so a fast period fits more steps than a slow one and the
  // median of all steps leans towards the fast periods. Every segment weighs the same here.
  if (!segment_medians.empty()) d.median = segment_center(segment_medians);
  const bool from_segments = segment_medians.size() >= kMinSegments;
  const auto reps = replicates(steps, segment_medians);
  const auto ci = median_interval_from_segments(d.median, reps, from_segments ? "segments" : "batch-means");
  if (!ci.valid) return d;
  d.ci_low = ci.low;
  d.ci_high = ci.high;
  d.ci_method = ci.method;
  d.ci_replicates = ci.segments;
  return d;
}

RatioInterval paired_ratio_interval(double ratio, std::span<const double> baseline, std::span<const double> candidate,
                                    double coverage) {
  if (baseline.size() != candidate.size()) throw std::invalid_argument("paired_ratio_interval: segment counts differ");
  if (baseline.size() < kMinSegments || !(ratio > 0)) return point_only(ratio);
  std::vector<double> d;
  for (std::size_t j = 0; j < baseline.size(); ++j) {
    if (!(baseline[j] > 0 && candidate[j] > 0)) throw std::invalid_argument("segment medians must be positive");
    d.push_back(std::log(baseline[j]) - std::log(candidate[j]));
  }
  const double n = static_cast<double>(d.size());
  double mean = 0, var = 0;
  for (double x : d) mean += x;
  mean /= n;
  for (double x : d) var += (x - mean) * (x - mean);
  var /= n - 1;
  const double t = coverage == 0.95 ? t_quantile_975(n - 1) : t_quantile(0.5 + coverage / 2, n - 1);
  return around(ratio, t * std::sqrt(var / n));
}

RatioInterval welch_ratio_interval(double ratio, std::span<const double> a, std::span<const double> b,
                                   double coverage) {
  if (a.size() < kMinSegments || b.size() < kMinSegments || !(ratio > 0)) return point_only(ratio);
  const auto ma = log_moments(a), mb = log_moments(b);
  const double va = ma.var / static_cast<double>(ma.n), vb = mb.var / static_cast<double>(mb.n);
  const double se2 = va + vb;
  if (se2 <= 0) return around(ratio, 0.0);
  // Welch-Satterthwaite degrees of freedom.
  const double df = se2 * se2 / (va * va / static_cast<double>(ma.n - 1) + vb * vb / static_cast<double>(mb.n - 1));
  return around(ratio, t_quantile(0.5 + coverage / 2, df) * std::sqrt(se2));
}

}  // namespace tb::stats
