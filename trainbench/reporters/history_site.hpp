// `trainbench history --html DIR`: the history as an offline, static site that can be published
// as it is (GitHub Pages, a CI artifact):
//
//   DIR/index.html              the latest change of every scenario first (regressions on top),
//                               then every scenario with its latest figures, then the recent runs
//   DIR/scenarios/<slug>.html   one page per scenario (and machine): the trend of its median step
//                               time with the 95% interval of each run, change points marked
//                               between the two runs (and commits) they fall between, the level
//                               between change points, contended runs drawn differently; the
//                               paired ratio NEW/OLD as a second chart where `ab --history`
//                               recorded one; the change points and every run as tables
//   DIR/assets/chart.min.js     Chart.js, once for every page
//
// Change points are those of `history --changes` (measure/trend_changes.hpp, one series per
// machine). Building the site reads the history; rendering is pure, so tests need no database.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/measure/trend_changes.hpp>
#include <trainbench/results/history.hpp>

namespace tb {

struct SiteSeries {
  std::string scenario_id;
  std::string machine;                      // machine label; shown when the scenario ran on several machines
  bool several_machines = false;            // the scenario's runs came from more than one machine
  std::vector<TrendPoint> points;           // oldest first
  std::vector<TrendChange> step_changes;    // of the step time, oldest first
  std::vector<TrendChange> paired_changes;  // of the paired ratio (runs recorded by ab --history)
  std::string page;                         // relative to the site's folder: "scenarios/<slug>.html"

  // The paired ratio when the series has at least one, else the step time: the ratio is measured
  // side by side with a reference build, so the machine's drift is not in it.
  TrendMetric primary_metric() const;
  const std::vector<TrendChange>& primary_changes() const;
  std::string title() const;  // "<scenario>" or "<scenario> on <machine>"
};

struct HistorySite {
  std::string db_path;
  std::vector<RunSummary> runs;    // newest first
  std::vector<SiteSeries> series;  // in the order scenarios were first recorded
};

// Every scenario of the history (of runs of `matrix` when not empty, or just `scenario`), the
// newest `limit` runs of each (0 = all), split per machine, with their change points. InputError
// naming the database when nothing matches.
HistorySite build_history_site(const History& history, const std::string& matrix, const std::string& scenario,
                               int limit);

// The chart specs of one scenario page (html_page.hpp's #tb-data format, kind "trend").
nlohmann::json site_series_charts(const SiteSeries& series);

void render_site_index(std::ostream& os, const HistorySite& site);

// `chartjs_src`: the Chart.js file relative to the page ("../assets/chart.min.js"); "" when it
// could not be installed (the page says so and keeps its tables).
void render_site_series(std::ostream& os, const HistorySite& site, const SiteSeries& series,
                        const std::string& chartjs_src);

}  // namespace tb
