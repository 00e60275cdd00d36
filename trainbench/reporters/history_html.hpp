// `trainbench history --html FILE`: one offline page with a trend chart per scenario (median
// step time and its 95% interval in each recorded run, oldest first) and a sortable table of
// first against latest. Drawn by the run report's script (html_page.hpp); without Chart.js the
// table still has every number.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/results/history.hpp>

namespace tb {

struct ScenarioTrend {
  std::string scenario_id;
  std::vector<TrendPoint> points;  // oldest first (History::trend)
};

// {"charts": [{"id": "trend-<slug>", "kind": "trend", "title", "labels" (one per run),
//   "runs", "statuses", "values" (median ms, null when not ok), "error_bars" ([low, high] ms
//   or null), "samples_per_s"}]}: one chart per scenario with at least one point.
nlohmann::json history_chart_data(const std::vector<ScenarioTrend>& trends);

void render_history_html(std::ostream& os, const std::string& db_path, const std::vector<ScenarioTrend>& trends,
                         const std::string& chartjs_path);

}  // namespace tb
