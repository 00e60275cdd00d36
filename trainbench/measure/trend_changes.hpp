// Change points in one scenario's recorded history: change_points.hpp applied to a metric of
// its runs, each change placed between two runs (and so two commits) and judged as a
// regression or an improvement.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <trainbench/measure/change_points.hpp>
#include <trainbench/results/history.hpp>

namespace tb {

// paired_ratio: step time NEW/OLD of the `ab` sessions that recorded the runs (`ab --history`),
// measured side by side against one reference build, so the machine's drift is not in it.
enum class TrendMetric { step_time, samples_per_s, peak_memory, paired_ratio };
const char* to_string(TrendMetric m);  // "step_time", ...
std::optional<TrendMetric> trend_metric_from_string(std::string_view name);
const char* trend_metric_label(TrendMetric m);  // "step time", "samples/s", "peak memory", ...

// The run's value of `metric`; nullopt when the scenario was not ok or the value is missing (0:
// peak memory not measured, no paired ratio): such runs are not part of the metric's series.
std::optional<double> trend_value(const TrendPoint& p, TrendMetric metric);

struct TrendChange {
  std::string scenario_id;
  TrendMetric metric = TrendMetric::step_time;
  TrendPoint before, after;    // the last run at the old level and the first at the new one
  TrendPoint newest;           // the series' newest run with a value (its gates are the matrix's now)
  ChangePoint change;          // index counts the runs that had a value (see trend_changes)
  std::size_t runs_since = 0;  // runs with a value from `after` to the newest, `after` included
  // A run next to the change (min_segment on each side) was measured on a loaded machine: the
  // change may be the load's, not the code's.
  bool contended_nearby = false;
  // Worse: step time, peak memory or the paired ratio up, samples/s down.
  bool regression = false;
  // The change in percent, signed the metric's way (+8 = 8% more): (ratio - 1) * 100.
  double percent() const { return (change.ratio - 1) * 100; }
};

// Change points of `metric` over `points` (oldest first, as History::trend gives them). Runs
// whose scenario was not ok, or that have no value for the metric (0: peak memory not
// measured), are left out of the series. Oldest change first.
std::vector<TrendChange> trend_changes(const std::string& scenario_id, const std::vector<TrendPoint>& points,
                                       TrendMetric metric, const ChangePointOptions& options = {});

// One scenario's runs as one series per machine (TrendPoint::machine), in the order the machines
// first appear: a step time on one machine says nothing about a change on another, so a change
// point never spans two.
std::vector<std::pair<std::string, std::vector<TrendPoint>>> series_per_machine(std::vector<TrendPoint> points);

}  // namespace tb
