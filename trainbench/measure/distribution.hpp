// The summary of a sample of step times (or rates) as results.json stores it: what reports,
// comparisons and projections read. Its own header so that measurement code (capacity
// projections, statistics) can use it without the whole results schema.
#pragma once
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace tb {

// Summary of a sample of durations (seconds) or rates.
struct Distribution {
  std::size_t n = 0;
  // For a segmented measurement `median` is the typical step time: the geometric mean of the
  // segment medians (segment_stats.hpp); median_all_steps is the plain median of every step.
  double median_all_steps = 0;
  double median = 0, mean = 0, stddev = 0, min = 0, max = 0;
  double p5 = 0, p25 = 0, p75 = 0, p95 = 0, p99 = 0;
  // 95% interval of the median that includes between-segment drift (segment_stats.hpp).
  // ci_method "segments" or "batch-means" when it exists; "none" (ci_low = ci_high = 0) when
  // there were too few replicates for any 95% interval: reports then print no interval.
  double ci_low = 0, ci_high = 0;
  std::string ci_method = "none";
  std::size_t ci_replicates = 0;  // segments (or blocks) behind the interval
  bool has_interval() const { return ci_method != "none" && ci_high > 0; }
};

void to_json(nlohmann::json& j, const Distribution& d);
void from_json(const nlohmann::json& j, Distribution& d);

}  // namespace tb
