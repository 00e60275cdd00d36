#include <trainbench/measure/trend_changes.hpp>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

double value_of(const TrendPoint& p, TrendMetric m) {
  switch (m) {
    case TrendMetric::step_time: return p.median_s;
    case TrendMetric::samples_per_s: return p.samples_per_s;
    case TrendMetric::peak_memory: return static_cast<double>(p.peak_bytes);
    case TrendMetric::paired_ratio: return p.paired_ratio;
  }
  return 0;
}

}  // namespace

std::optional<double> trend_value(const TrendPoint& p, TrendMetric metric) {
  const double v = value_of(p, metric);
  if (p.status != "ok" || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

const char* to_string(TrendMetric m) {
  switch (m) {
    case TrendMetric::step_time: return "step_time";
    case TrendMetric::samples_per_s: return "samples_per_s";
    case TrendMetric::peak_memory: return "peak_memory";
    case TrendMetric::paired_ratio: return "paired_ratio";
  }
  return "?";
}

const char* trend_metric_label(TrendMetric m) {
  switch (m) {
    case TrendMetric::step_time: return "step time";
    case TrendMetric::samples_per_s: return "samples/s";
    case TrendMetric::peak_memory: return "peak memory";
    case TrendMetric::paired_ratio: return "step time NEW/OLD, paired (ab)";
  }
  return "?";
}

std::optional<TrendMetric> trend_metric_from_string(std::string_view name) {
  for (TrendMetric m :
       {TrendMetric::step_time, TrendMetric::samples_per_s, TrendMetric::peak_memory, TrendMetric::paired_ratio})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

std::vector<TrendChange> trend_changes(const std::string& scenario_id, const std::vector<TrendPoint>& points,
                                       TrendMetric metric, const ChangePointOptions& options) {
  std::vector<const TrendPoint*> runs;
  std::vector<double> series;
  for (const auto& p : points) {
    const auto v = trend_value(p, metric);
    if (!v) continue;
    runs.push_back(&p);
    series.push_back(*v);
  }
  std::vector<TrendChange> out;
  for (const ChangePoint& cp : find_change_points(series, options)) {
    TrendChange c;
    c.scenario_id = scenario_id;
    c.metric = metric;
    c.before = *runs[cp.index - 1];
    c.after = *runs[cp.index];
    c.newest = *runs.back();
    c.change = cp;
    c.runs_since = runs.size() - cp.index;
    const std::size_t lo = cp.index >= options.min_segment ? cp.index - options.min_segment : 0;
    const std::size_t hi = std::min(runs.size(), cp.index + options.min_segment);
    for (std::size_t i = lo; i < hi; ++i) c.contended_nearby = c.contended_nearby || runs[i]->contended;
    c.regression = metric == TrendMetric::samples_per_s ? cp.ratio < 1 : cp.ratio > 1;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<TrendPoint>>> series_per_machine(std::vector<TrendPoint> points) {
  std::vector<std::pair<std::string, std::vector<TrendPoint>>> out;
  for (auto& p : points) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.first == p.machine; });
    if (it == out.end()) it = out.insert(out.end(), {p.machine, {}});
    it->second.push_back(std::move(p));
  }
  return out;
}

}  // namespace tb
