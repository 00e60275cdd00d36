#include <trainbench/reporters/history_site.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include <trainbench/build_config.hpp>
#include <trainbench/reporters/embedded_assets.hpp>
#include <trainbench/reporters/html_chart_data.hpp>
#include <trainbench/reporters/html_page.hpp>
#include <trainbench/reporters/report_format.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

namespace {

using html_page::esc;
using nlohmann::json;

// Site-only styles (assets/site.css): the change badges and the page's navigation.
const char* const kSiteStyle = embedded_assets::kSiteCss;

// The commit under test (else trainbench's revision), short.
std::string commit_of(const TrendPoint& p) {
  const std::string& c = p.commit.empty() ? p.git_revision : p.commit;
  return c.substr(0, std::min<std::size_t>(10, c.size()));
}

std::string signed_percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1) * 100);
  return buf;
}

// "+8.1% [+6.0%, +10.2%]", or without an interval when a side was too short for one.
std::string change_text(const TrendChange& c) {
  const ChangePoint& cp = c.change;
  std::string s = signed_percent(cp.ratio);
  if (cp.ratio_valid) s += " [" + signed_percent(cp.ratio_low) + ", " + signed_percent(cp.ratio_high) + "]";
  return s;
}

std::string change_class(const TrendChange& c) { return c.regression ? "regression" : "improvement"; }

// Where a run sits among the series' points (change points name their runs).
std::size_t index_of(const std::vector<TrendPoint>& points, const std::string& run_id) {
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].run_id == run_id) return i;
  return points.size();
}

// Each point's level: the median of the metric between the change points around it (null where
// the run has no value), so the chart shows the steps the change points stand for.
json levels_of(const std::vector<TrendPoint>& points, const std::vector<TrendChange>& changes, TrendMetric metric,
               double scale) {
  std::vector<std::size_t> bounds = {0};
  for (const auto& c : changes) bounds.push_back(index_of(points, c.after.run_id));
  bounds.push_back(points.size());
  json out = json::array();
  for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
    std::vector<double> values;
    for (std::size_t i = bounds[b]; i < bounds[b + 1]; ++i)
      if (const auto v = trend_value(points[i], metric)) values.push_back(*v);
    std::sort(values.begin(), values.end());
    double median = 0;
    if (!values.empty()) {
      const std::size_t n = values.size();
      median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
    for (std::size_t i = bounds[b]; i < bounds[b + 1]; ++i) {
      if (trend_value(points[i], metric) && !values.empty()) out.push_back(median * scale);
      else out.push_back(nullptr);
    }
  }
  return out;
}

// The x positions of the change points (half-way between the two runs) and their labels.
json change_markers(const std::vector<TrendPoint>& points, const std::vector<TrendChange>& changes) {
  json out = json::array();
  for (const auto& c : changes) {
    const double before = static_cast<double>(index_of(points, c.before.run_id));
    const double after = static_cast<double>(index_of(points, c.after.run_id));
    out.push_back({{"x", (before + after) / 2}, {"label", signed_percent(c.change.ratio)}});
  }
  return out;
}

// The commit under test when the run recorded one, else when it ran: the x axis of a trend.
std::string axis_label(const TrendPoint& p) {
  if (!p.commit.empty()) return p.commit.substr(0, std::min<std::size_t>(10, p.commit.size()));
  std::string when = p.started_at.substr(0, 16);
  if (when.size() > 10 && when[10] == 'T') when[10] = ' ';
  return when;
}

json trend_chart(const SiteSeries& s, TrendMetric metric, const std::vector<TrendChange>& changes) {
  const bool paired = metric == TrendMetric::paired_ratio;
  const double scale = paired ? 1.0 : 1e3;  // step times in ms
  json labels = json::array(), runs = json::array(), statuses = json::array(), values = json::array(),
       bars = json::array(), rates = json::array(), commits = json::array(), contended = json::array();
  for (const auto& p : s.points) {
    labels.push_back(axis_label(p));
    runs.push_back(p.run_id);
    statuses.push_back(p.status);
    commits.push_back(p.commit);
    contended.push_back(p.contended);
    const auto v = trend_value(p, metric);
    values.push_back(v ? json(*v * scale) : json(nullptr));
    if (v)
      bars.push_back(paired ? json::array({p.paired_low, p.paired_high})
                            : json::array({p.ci_low * 1e3, p.ci_high * 1e3}));
    else bars.push_back(nullptr);
    rates.push_back(v && !paired ? json(p.samples_per_s) : json(nullptr));
  }
  const std::string slug = chart_slug(s.title());
  json chart = {{"id", (paired ? "paired-" : "trend-") + slug},
                {"kind", "trend"},
                {"group", "trend"},
                {"title", paired ? "Step time NEW/OLD, paired with the reference build (ab --history)"
                                 : "Median step time per run"},
                {"y_title", paired ? "NEW/OLD (1 = as fast as the reference)" : "median ms per optimizer step"},
                {"value_label", paired ? "paired ratio (whiskers: 95% CI)" : "median ms (whiskers: 95% CI)"},
                {"unit", paired ? "" : " ms"},
                {"labels", labels},
                {"runs", runs},
                {"statuses", statuses},
                {"commits", commits},
                {"contended", contended},
                {"values", values},
                {"error_bars", bars},
                {"samples_per_s", rates},
                {"levels", levels_of(s.points, changes, metric, scale)},
                {"changes", change_markers(s.points, changes)},
                {"caption",
                 "Oldest run left; x axis: the commit under test (else the run's start). Red lines: change "
                 "points, labelled with the change of the level. Orange triangles: runs measured on a "
                 "loaded machine (contended)."}};
  if (paired) {
    chart["begin_at_zero"] = false;
    chart["reference_line"] = 1.0;
  }
  return chart;
}

void write_changes_table(std::ostream& os, const std::vector<const TrendChange*>& changes, const HistorySite& site,
                         bool link_scenarios, const std::string& id) {
  os << "<table id=\"" << id << "\">\n<tr>" << (link_scenarios ? "<th>scenario</th>" : "")
     << "<th>metric</th><th>commits (last old .. first new)</th><th>change [95% CI]</th><th>p</th>"
        "<th>runs since</th><th>new level from</th><th>note</th></tr>\n";
  for (const TrendChange* c : changes) {
    os << "<tr>";
    if (link_scenarios) {
      const auto it = std::find_if(site.series.begin(), site.series.end(),
                                   [&](const SiteSeries& s) { return s.title() == c->scenario_id; });
      os << "<td><a href=\"" << esc(it == site.series.end() ? "" : it->page) << "\"><code>" << esc(c->scenario_id)
         << "</code></a></td>";
    }
    char p[16];
    std::snprintf(p, sizeof p, "%.3f", c->change.p_value);
    os << "<td>" << esc(trend_metric_label(c->metric)) << "</td><td><code>" << esc(commit_of(c->before)) << ".."
       << esc(commit_of(c->after)) << "</code></td><td class=\"num " << change_class(*c) << "\">"
       << esc(change_text(*c)) << "</td><td class=\"num\">" << p << "</td><td class=\"num\">" << c->runs_since
       << "</td><td>" << esc(c->after.started_at) << "</td><td>" << change_class(*c)
       << (c->contended_nearby ? ", contended runs nearby: may be the load's" : "") << "</td></tr>\n";
  }
  os << "</table>\n";
}

std::string page_slug(const std::string& title, std::set<std::string>& taken) {
  std::string slug = chart_slug(title);
  if (slug.empty()) slug = "scenario";
  std::string unique = slug;
  for (int n = 2; !taken.insert(unique).second; ++n) unique = slug + "-" + std::to_string(n);
  return unique;
}

}  // namespace

TrendMetric SiteSeries::primary_metric() const {
  const bool paired = std::any_of(points.begin(), points.end(), [](const TrendPoint& p) {
    return trend_value(p, TrendMetric::paired_ratio).has_value();
  });
  return paired ? TrendMetric::paired_ratio : TrendMetric::step_time;
}

const std::vector<TrendChange>& SiteSeries::primary_changes() const {
  return primary_metric() == TrendMetric::paired_ratio ? paired_changes : step_changes;
}

std::string SiteSeries::title() const { return several_machines ? scenario_id + " on " + machine : scenario_id; }

HistorySite build_history_site(const History& history, const std::string& matrix, const std::string& scenario,
                               int limit) {
  HistorySite site{.db_path = history.path(), .runs = history.runs(limit), .series = {}};
  const auto ids = scenario.empty() ? history.scenario_ids(matrix) : std::vector<std::string>{scenario};
  std::set<std::string> slugs;
  for (const auto& id : ids) {
    auto per_machine = series_per_machine(history.trend(id, limit));
    for (auto& [machine, points] : per_machine) {
      SiteSeries s{.scenario_id = id, .machine = machine, .several_machines = per_machine.size() > 1};
      s.points = std::move(points);
      s.step_changes = trend_changes(s.title(), s.points, TrendMetric::step_time);
      if (s.primary_metric() == TrendMetric::paired_ratio)
        s.paired_changes = trend_changes(s.title(), s.points, TrendMetric::paired_ratio);
      s.page = "scenarios/" + page_slug(s.title(), slugs) + ".html";
      site.series.push_back(std::move(s));
    }
  }
  TB_CHECK_INPUT(
      !site.series.empty(), history.path(), scenario.empty() ? "--matrix" : "--scenario", "no recorded results",
      matrix.empty() && scenario.empty() ? std::string() : " for '" + (scenario.empty() ? matrix : scenario) + "'");
  return site;
}

json site_series_charts(const SiteSeries& series) {
  json charts = json::array();
  if (series.points.empty()) return {{"charts", charts}};
  charts.push_back(trend_chart(series, TrendMetric::step_time, series.step_changes));
  if (series.primary_metric() == TrendMetric::paired_ratio)
    charts.push_back(trend_chart(series, TrendMetric::paired_ratio, series.paired_changes));
  return {{"charts", charts}};
}

void render_site_index(std::ostream& os, const HistorySite& site) {
  html_page::open(os, "trainbench history");
  os << "<style>" << kSiteStyle << "</style>\n<h1>trainbench history</h1>\n<p class=\"meta\">database <code>"
     << esc(site.db_path) << "</code> · " << site.series.size() << " scenario series · " << site.runs.size()
     << " runs. Change points: E-Divisive means with a permutation test, as <code>trainbench history "
        "--changes</code> finds them; in the paired ratio NEW/OLD where <code>ab --history</code> recorded one "
        "(the machine's drift is not in it), else in the median step time.</p>\n";

  // The newest change of each series, regressions first, then the newest.
  std::vector<const TrendChange*> latest;
  for (const auto& s : site.series)
    if (!s.primary_changes().empty()) latest.push_back(&s.primary_changes().back());
  std::stable_sort(latest.begin(), latest.end(), [](const TrendChange* a, const TrendChange* b) {
    if (a->regression != b->regression) return a->regression;
    return a->after.started_at > b->after.started_at;
  });
  os << "<h2>Latest change per scenario</h2>\n";
  if (latest.empty()) os << "<p class=\"quiet\" id=\"tb-no-changes\">No change point in any scenario's history.</p>\n";
  else write_changes_table(os, latest, site, true, "tb-latest-changes");

  os << "<h2>Scenarios</h2>\n<table id=\"tb-site-scenarios\">\n<tr><th>scenario</th><th>runs</th>"
        "<th>latest commit</th><th>latest median ms</th><th>latest paired ratio</th><th>change points</th>"
        "<th>latest change</th></tr>\n";
  for (const auto& s : site.series) {
    const TrendPoint* last = nullptr;
    for (auto it = s.points.rbegin(); it != s.points.rend() && !last; ++it)
      if (trend_value(*it, TrendMetric::step_time)) last = &*it;
    os << "<tr><td><a href=\"" << esc(s.page) << "\"><code>" << esc(s.title()) << "</code></a></td><td class=\"num\">"
       << s.points.size() << "</td><td><code>" << esc(last ? commit_of(*last) : "-") << "</code></td><td class=\"num\">"
       << (last ? report::fixed(last->median_s * 1e3, 3) : "-") << "</td><td class=\"num\">"
       << (last && last->paired_ratio > 0 ? report::fixed(last->paired_ratio, 3) : "-") << "</td><td class=\"num\">"
       << s.primary_changes().size() << "</td>";
    if (s.primary_changes().empty()) os << "<td class=\"quiet\">none</td>";
    else {
      const TrendChange& c = s.primary_changes().back();
      os << "<td class=\"" << change_class(c) << "\">" << esc(signed_percent(c.change.ratio)) << " at <code>"
         << esc(commit_of(c.after)) << "</code></td>";
    }
    os << "</tr>\n";
  }
  os << "</table>\n<h2>Recent runs</h2>\n<table id=\"tb-site-runs\">\n<tr><th>run</th><th>started</th>"
        "<th>commit</th><th>ok/all</th><th>matrix</th></tr>\n";
  const std::size_t shown = std::min<std::size_t>(site.runs.size(), 30);
  for (std::size_t i = 0; i < shown; ++i) {
    const RunSummary& r = site.runs[i];
    const std::string& commit = r.commit.empty() ? r.git_revision : r.commit;
    os << "<tr><td><code>" << esc(r.run_id) << "</code></td><td>" << esc(r.started_at) << "</td><td><code>"
       << esc(commit.substr(0, std::min<std::size_t>(10, commit.size()))) << "</code></td><td class=\"num\">" << r.ok
       << "/" << r.scenarios << "</td><td>" << esc(r.matrix) << "</td></tr>\n";
  }
  os << "</table>\n";
  if (site.runs.size() > shown)
    os << "<p class=\"meta\">" << site.runs.size() - shown
       << " older runs: <code>trainbench history</code> lists them.</p>\n";
  os << "<p class=\"meta\">Generated by trainbench " << TRAINBENCH_VERSION << ".</p>\n";
  // No charts here, but the same script sorts the tables (and records the layout for tests).
  os << "<p id=\"tb-chart-status\" data-drawn=\"0\" data-errors=\"0\" hidden></p>\n";
  html_page::close_with_script_src(os, R"({"charts": []})", "");
}

void render_site_series(std::ostream& os, const HistorySite& site, const SiteSeries& series,
                        const std::string& chartjs_src) {
  html_page::open(os, series.title() + " · trainbench history");
  os << "<style>" << kSiteStyle
     << "</style>\n<nav class=\"site\"><a href=\"../index.html\">&larr; all scenarios</a></nav>\n"
     << "<h1><code>" << esc(series.title()) << "</code></h1>\n<p class=\"meta\">" << series.points.size()
     << " runs in <code>" << esc(site.db_path) << "</code>";
  if (!series.machine.empty()) os << " · machine <code>" << esc(series.machine) << "</code>";
  os << "</p>\n";
  html_page::chart_slots(os, !chartjs_src.empty(), "assets/chart.min.js", "trainbench history --html DIR");

  std::vector<const TrendChange*> changes;
  for (const auto* list : {&series.paired_changes, &series.step_changes})
    for (auto it = list->rbegin(); it != list->rend(); ++it) changes.push_back(&*it);
  os << "<h2>Change points</h2>\n";
  if (changes.empty()) os << "<p class=\"quiet\" id=\"tb-no-changes\">None: the history is one level.</p>\n";
  else write_changes_table(os, changes, site, false, "tb-series-changes");

  const bool paired = series.primary_metric() == TrendMetric::paired_ratio;
  os << "<h2>Runs</h2>\n<table id=\"tb-series-runs\">\n<tr><th>run</th><th>started</th><th>commit</th>"
        "<th>status</th><th>median ms</th><th>95% CI ms</th><th>samples/s</th><th>peak memory</th>"
     << (paired ? "<th>paired ratio [95% CI]</th>" : "") << "<th>contended</th></tr>\n";
  for (auto it = series.points.rbegin(); it != series.points.rend(); ++it) {
    const TrendPoint& p = *it;
    const bool ok = trend_value(p, TrendMetric::step_time).has_value();
    os << "<tr" << (p.contended ? " class=\"contended\"" : "") << "><td><code>" << esc(p.run_id) << "</code></td><td>"
       << esc(p.started_at) << "</td><td><code>" << esc(commit_of(p)) << "</code></td><td>" << esc(p.status)
       << "</td><td class=\"num\">" << (ok ? report::fixed(p.median_s * 1e3, 3) : "-") << "</td><td class=\"num\">"
       << (ok ? report::fixed(p.ci_low * 1e3, 3) + " .. " + report::fixed(p.ci_high * 1e3, 3) : "-")
       << "</td><td class=\"num\">" << (ok ? report::fixed(p.samples_per_s, 1) : "-") << "</td><td class=\"num\">"
       << (p.peak_bytes > 0 ? report::bytes(p.peak_bytes) : "-") << "</td>";
    if (paired)
      os << "<td class=\"num\">"
         << (p.paired_ratio > 0 ? report::fixed(p.paired_ratio, 3) + " [" + report::fixed(p.paired_low, 3) + ", " +
                                      report::fixed(p.paired_high, 3) + "]"
                                : "-")
         << "</td>";
    os << "<td>" << (p.contended ? "yes" : "") << "</td></tr>\n";
  }
  os << "</table>\n<p class=\"meta\">Generated by trainbench " << TRAINBENCH_VERSION << ".</p>\n";
  html_page::close_with_script_src(os, html_page::script_safe(site_series_charts(series).dump(1)), chartjs_src);
}

}  // namespace tb
