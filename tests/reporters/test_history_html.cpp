// The history page's chart data and page: one trend chart per scenario, gaps where a run did not
// finish the scenario ok, and the table of first against latest.
#include <trainbench/reporters/history_html.hpp>

#include <regex>
#include <sstream>

#include <gtest/gtest.h>

namespace tb {
namespace {

TrendPoint point(const std::string& run, const std::string& status, double median_s) {
  TrendPoint p;
  p.run_id = run;
  p.started_at = "2026-01-0" + run.substr(1) + "T08:30:00Z";
  p.git_revision = "abcdef1234";
  p.status = status;
  p.median_s = median_s;
  p.ci_low = median_s * 0.9;
  p.ci_high = median_s * 1.1;
  p.samples_per_s = median_s > 0 ? 32 / median_s : 0;
  return p;
}

std::vector<ScenarioTrend> trends() {
  return {{"mlp/fp32/w0/a1/b32", {point("r1", "ok", 0.010), point("r2", "oom", 0), point("r3", "ok", 0.012)}},
          {"cnn/fp32/w0/a1/b32", {point("r1", "ok", 0.030)}},
          {"never/recorded", {}}};
}

TEST(HistoryChartData, OneTrendPerScenarioWithGapsForRunsThatWereNotOk) {
  const auto data = history_chart_data(trends());
  const auto& charts = data.at("charts");
  ASSERT_EQ(charts.size(), 2u) << "a scenario without points has no chart";
  const auto& mlp = charts.at(0);
  EXPECT_EQ(mlp.at("id"), "trend-mlp-fp32-w0-a1-b32");
  EXPECT_EQ(mlp.at("kind"), "trend");
  EXPECT_EQ(mlp.at("labels").at(0), "2026-01-01 08:30 · abcdef1");
  EXPECT_NEAR(mlp.at("values").at(0).get<double>(), 10.0, 1e-9);  // milliseconds
  EXPECT_TRUE(mlp.at("values").at(1).is_null());
  EXPECT_TRUE(mlp.at("error_bars").at(1).is_null());
  EXPECT_EQ(mlp.at("statuses").at(1), "oom");
  EXPECT_NEAR(mlp.at("error_bars").at(2).at(1).get<double>(), 13.2, 1e-9);
}

TEST(HistoryHtml, TableComparesFirstAndLatestMeasuredRun) {
  std::ostringstream os;
  render_history_html(os, "results/history.sqlite", trends(), "/nonexistent/chart.min.js");
  const std::string html = os.str();
  EXPECT_NE(html.find("id=\"tb-charts-missing\""), std::string::npos);
  EXPECT_NE(html.find("<code>trainbench history --html</code>"), std::string::npos);
  // mlp: 10.000 ms first, 12.000 ms latest, +20.0%.
  EXPECT_TRUE(std::regex_search(html, std::regex("mlp/fp32/w0/a1/b32</code></td><td class=\"num\">3</td>"
                                                 "<td class=\"num\">10\\.000</td><td class=\"num\">12\\.000</td>"
                                                 "<td class=\"num\">20\\.0%</td>")))
      << html.substr(0, 4000);
  EXPECT_NE(html.find("never/recorded</code></td><td class=\"num\">0</td><td class=\"num\">-</td>"), std::string::npos);
  EXPECT_NE(html.find("<script type=\"application/json\" id=\"tb-data\">"), std::string::npos);
}

}  // namespace
}  // namespace tb
