// Intervals that include run-to-run drift.
//
// A scenario is measured in R short segments (rounds), interleaved with the other scenarios of
// the matrix, so slow drift and transient load of a shared machine hit every scenario alike and
// show up as differences between segments, which the step-to-step jitter inside one segment
// never sees. Every interval here is a Student-t interval over per-segment medians (in log
// space, since step times are positive and their disturbances multiplicative):
//
//   step time of a scenario  m * exp(+-t(R-1) * s / sqrt(R)),   s = sd of log segment medians
//   speedup, paired rounds   r * exp(+-t(R-1) * s_d / sqrt(R)), d_j = log b_j - log c_j
//   change between two runs  r * exp(+-t(df) * sqrt(s_a^2/R_a + s_b^2/R_b)), Welch df
//
// centred on m = the geometric mean of the segment medians (segment_center), every segment
// weighing the same, and on ratios of those. Segments are treated as independent replicates
// whose log medians are roughly normal; the coverage was checked against repeated A/A runs (see
// README "Statistics"). Below kMinSegments there is no interval at all: the result says so
// (valid = false) instead of printing a [min, max] labelled 95%.
//
// Results without recorded segments (older files) fall back to batch means: the step series is
// cut into consecutive blocks that stand in for segments (method "batch-means").
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <trainbench/measure/stats.hpp>

namespace tb::stats {

// Fewest segments (replicates) behind any interval: with 2, t(1) = 12.7 and one spread estimate
// from two numbers; 3 is the smallest count whose interval means something.
inline constexpr std::size_t kMinSegments = 3;
// Blocks used by the batch-means fallback (when at least 2 * kBatchMeansBlocks steps exist).
inline constexpr std::size_t kBatchMeansBlocks = 6;

// Two-sided 97.5% quantile of Student's t with `df` degrees of freedom (df may be fractional, as
// Welch's is); exact table for small df, interpolated in 1/df beyond. df must be > 0.
double t_quantile_975(double df);

// Quantile p of Student's t (normal quantile by Acklam's rational approximation, then the
// Cornish-Fisher expansion in 1/df: within 0.1% of the exact value for df >= 3, for the p the
// gate uses). For the family-wise intervals of the CI gate; df must be > 0, p in (0.5, 1).
double t_quantile(double p, double df);

struct SegmentInterval {
  double low = 0, high = 0;
  bool valid = false;
  std::size_t segments = 0;  // replicates behind it
  std::string method;        // "segments", "batch-means" or "none"
};

// 95% interval of a scenario's median step time `center` from its segment medians (all > 0).
SegmentInterval median_interval_from_segments(double center, std::span<const double> segment_medians,
                                              const std::string& method = "segments");

// The replicates of a step series when no segments were recorded: medians of kBatchMeansBlocks
// consecutive blocks (empty when there are fewer than 2 * kBatchMeansBlocks steps).
std::vector<double> batch_medians(std::span<const double> steps);

// Geometric mean of the segment medians: a scenario's typical step time (0 when empty).
double segment_center(std::span<const double> segment_medians);

// Distribution of all measured steps (stats::summarize) whose median is replaced by the segment
// center when there are segments (median_all_steps keeps the plain one) and its interval by the
// drift-aware one: from the segment medians (at least kMinSegments), none with 1 or 2 segments,
// and batch means of `steps` for results written before segments existed (no segments).
Distribution summarize_segmented(std::span<const double> steps, std::span<const double> segment_medians);

// The replicates behind a scenario's intervals: its segment medians when it has kMinSegments or
// more, nothing with 1 or 2, batch medians of its steps when it recorded no segments.
std::vector<double> replicates(std::span<const double> steps, std::span<const double> segment_medians);

// Paired interval of `ratio` (= baseline / candidate, per sample) at two-sided `coverage` from
// segment medians measured in the same rounds: baseline[j] and candidate[j] come from round j.
// Sizes must match; valid only with at least kMinSegments pairs.
RatioInterval paired_ratio_interval(double ratio, std::span<const double> baseline, std::span<const double> candidate,
                                    double coverage = 0.95);

// Unpaired (Welch) interval of `ratio` (= a / b) from two sets of segment medians, e.g. the
// same scenario in an old and a new run, at two-sided `coverage` (default 95%). Valid only when
// both have at least kMinSegments.
RatioInterval welch_ratio_interval(double ratio, std::span<const double> a, std::span<const double> b,
                                   double coverage = 0.95);

}  // namespace tb::stats
