// Opens the HTML report in headless Chromium: every chart listed in the data block must be drawn
// without script errors, at 900 and 1400 px each chart's legend must stay out of its plot area
// (the draw script records both boxes on the chart's card) and leave the plot room, the page
// must not scroll sideways and at 1400 px no table either. Screenshots are left at
// TB_BINARY_DIR/report_screenshot*.png for people to look at. Skipped where Chromium or Chart.js
// is not installed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/reporters/history_html.hpp>
#include <trainbench/reporters/history_site.hpp>
#include <trainbench/reporters/html_chart_data.hpp>
#include <trainbench/reporters/html_page.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include <trainbench/reporters/reporter.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    if (test::have_program(name)) return name;
  return "";
}

// The browser flags shared by both invocations; a private profile directory keeps parallel test
// runs from sharing (and locking) one.
std::string chromium_command(const std::string& browser, const std::filesystem::path& scratch) {
  return "timeout 60 " + browser +
         " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run"
         " --virtual-time-budget=5000 --user-data-dir=" +
         (scratch / "profile").string();
}

int attribute(const std::string& dom, const std::string& name) {
  const std::regex re("id=\"tb-chart-status\"[^>]*" + name + "=\"(-?[0-9]+)\"");
  std::smatch m;
  if (!std::regex_search(dom, m, re)) return -1;
  return std::stoi(m[1]);
}

std::string status_text(const std::string& dom, const std::string& name) {
  const std::regex re("id=\"tb-chart-status\"[^>]*" + name + "=\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(dom, m, re) ? std::string(m[1]) : std::string("(missing)");
}

// "l,t,r,b" -> {l, t, r, b}.
std::vector<int> box(const std::string& text) {
  std::vector<int> v;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) v.push_back(std::stoi(part));
  return v;
}

// Every chart card of the dumped DOM drew, its legend (if any) is outside its plot area, and the
// plot keeps at least `min_plot_px` of height and width. Returns the number of cards checked.
int expect_charts_laid_out(const std::string& dom, const std::string& where, int min_plot_px = 100) {
  const std::regex card("<div class=\"chart-card[^\"]*\" id=\"chart-([^\"]+)\"([^>]*)>");
  int cards = 0;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), card); it != std::sregex_iterator(); ++it) {
    ++cards;
    const std::string id = (*it)[1], attrs = (*it)[2];
    auto attr = [&](const std::string& name) {
      std::smatch m;
      const std::regex re(name + "=\"([^\"]*)\"");
      return std::regex_search(attrs, m, re) ? std::string(m[1]) : std::string();
    };
    EXPECT_EQ(attr("data-drawn"), "1") << where << ": chart " << id;
    EXPECT_EQ(attr("data-overlap"), "0") << where << ": legend covers the plot of " << id;
    const auto area = box(attr("data-area").empty() ? "0,0,0,0" : attr("data-area"));
    EXPECT_EQ(area.size(), 4u) << where << ": " << id;
    if (area.size() != 4u) continue;
    EXPECT_GE(area[3] - area[1], min_plot_px)
        << where << ": plot of " << id << " squeezed to " << attr("data-area") << " by legend " << attr("data-legend");
    EXPECT_GE(area[2] - area[0], min_plot_px) << where << ": " << id;
    if (const std::string legend = attr("data-legend"); legend != "none") {
      const auto l = box(legend);
      EXPECT_EQ(l.size(), 4u) << where << ": " << id;
      if (l.size() != 4u) continue;
      EXPECT_TRUE(l[1] >= area[3] || l[3] <= area[1] || l[0] >= area[2] || l[2] <= area[0])
          << where << ": " << id << " legend " << legend << " overlaps plot " << attr("data-area");
    }
  }
  return cards;
}

void write_html(const RunResult& run, HtmlReporter& reporter, const std::filesystem::path& path) {
  std::ofstream file(path);
  ReportContext ctx;
  ctx.out = &file;
  reporter.render(run, ctx);
}

// Pages drawn with Chart.js: skipped without Chromium or Chart.js.
class ChartsInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    browser = find_chromium();
    if (browser.empty()) GTEST_SKIP() << "chromium is not installed";
    if (!std::filesystem::exists(reporter.chartjs_path()))
      GTEST_SKIP() << "Chart.js not found at '" << reporter.chartjs_path() << "' (libjs-chart.js)";
  }
  std::string browser;
  HtmlReporter reporter;
};

TEST_F(ChartsInBrowser, DrawsEveryChartWithoutErrors) {
  const auto run = test::fixture_run();
  const auto dir = test::scratch_dir("html_browser");
  const auto page = dir / "report.html";
  write_html(run, reporter, page);
  const int expected = static_cast<int>(html_chart_data(run).at("charts").size());
  ASSERT_GT(expected, 0);

  const auto dom =
      test::run_command(chromium_command(browser, dir) + " --dump-dom file://" + page.string() + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_EQ(attribute(dom.output, "data-expected"), expected);
  EXPECT_EQ(attribute(dom.output, "data-drawn"), expected) << "window.__tbChartsDrawn";
  EXPECT_EQ(attribute(dom.output, "data-errors"), 0) << "window.__tbChartErrors";
  EXPECT_EQ(dom.output.find("tb-charts-missing"), std::string::npos);

  for (const int width : {900, 1400}) {
    const std::string where = std::to_string(width) + " px";
    const auto sized = test::run_command(chromium_command(browser, dir) + " --window-size=" + std::to_string(width) +
                                         ",3000 --dump-dom file://" + page.string() + " 2>/dev/null");
    ASSERT_EQ(sized.exit_code, 0);
    EXPECT_EQ(attribute(sized.output, "data-drawn"), expected) << where;
    EXPECT_EQ(expect_charts_laid_out(sized.output, where), expected) << where;
    EXPECT_EQ(status_text(sized.output, "data-page-overflow"), "0") << where << ": the page scrolls sideways";
    if (width == 1400) {
      EXPECT_EQ(status_text(sized.output, "data-scrolling-tables"), "") << where << ": tables wider than the page";
    }
  }
  // Every table can be sorted from its header.
  EXPECT_NE(dom.output.find("<th class=\"sortable\""), std::string::npos);

  const auto shot = std::filesystem::path(TB_BINARY_DIR) / "report_screenshot.png";
  std::filesystem::remove(shot);
  const auto res = test::run_command(chromium_command(browser, dir) + " --window-size=1280,2400" +
                                     " --screenshot=" + shot.string() + " file://" + page.string());
  EXPECT_EQ(res.exit_code, 0) << res.output.substr(0, 2000);
  ASSERT_TRUE(std::filesystem::exists(shot));
  EXPECT_GT(std::filesystem::file_size(shot), 20000u) << "a blank page compresses far smaller";
}

TEST_F(ChartsInBrowser, HistoryPageDrawsATrendPerScenario) {
  std::vector<ScenarioTrend> trends;
  for (const auto& s : test::fixture_run().scenarios) {
    ScenarioTrend t{s.id, {}};
    for (int run = 0; run < 4; ++run) {
      TrendPoint p;
      p.run_id = "r" + std::to_string(run);
      p.started_at = "2026-01-0" + std::to_string(run + 1) + "T00:00:00Z";
      p.status = run == 2 ? "oom" : to_string(s.status);
      p.median_s = s.step_time_s.median * (1.0 + 0.05 * run);
      p.ci_low = p.median_s * 0.98;
      p.ci_high = p.median_s * 1.02;
      t.points.push_back(p);
    }
    trends.push_back(t);
  }
  const auto dir = test::scratch_dir("html_browser_history");
  const auto page = dir / "history.html";
  {
    std::ofstream file(page);
    render_history_html(file, "history.sqlite", trends, reporter.chartjs_path());
  }
  const int expected = static_cast<int>(history_chart_data(trends).at("charts").size());
  const auto dom = test::run_command(chromium_command(browser, dir) + " --window-size=900,3000 --dump-dom file://" +
                                     page.string() + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_EQ(attribute(dom.output, "data-drawn"), expected);
  EXPECT_EQ(attribute(dom.output, "data-errors"), 0);
  EXPECT_EQ(expect_charts_laid_out(dom.output, "history 900 px"), expected);
}

// The history site: a scenario page with a planted change (marked), a contended run and paired
// ratios draws both charts at 900 and 1400 px without scrolling sideways; the index has no
// chart and no script error. Screenshots at TB_BINARY_DIR/history_site_*.png.
TEST_F(ChartsInBrowser, HistorySitePagesDrawAtBothWidths) {
  SiteSeries series{.scenario_id = "mlp/fp32/w0/a1/b32", .machine = "Test CPU 9000"};
  for (int i = 0; i < 24; ++i) {
    TrendPoint p;
    p.run_id = "r" + std::to_string(i);
    p.started_at = "2026-02-" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1) + "T00:00:00Z";
    p.commit = "c" + std::to_string(i);
    p.status = "ok";
    const double wobble = 1 + 0.01 * ((i * 7) % 5 - 2);
    p.median_s = 0.010 * (i >= 16 ? 1.1 : 1.0) * wobble;
    p.ci_low = p.median_s * 0.98;
    p.ci_high = p.median_s * 1.02;
    p.samples_per_s = 32 / p.median_s;
    p.paired_ratio = (i >= 16 ? 1.1 : 1.0) * wobble;
    p.paired_low = p.paired_ratio * 0.97;
    p.paired_high = p.paired_ratio * 1.03;
    p.contended = i == 9;
    series.points.push_back(p);
  }
  series.step_changes = trend_changes(series.scenario_id, series.points, TrendMetric::step_time);
  series.paired_changes = trend_changes(series.scenario_id, series.points, TrendMetric::paired_ratio);
  ASSERT_FALSE(series.paired_changes.empty());
  series.page = "scenarios/mlp.html";
  HistorySite site{.db_path = "history.sqlite", .runs = {}, .series = {series}};

  const auto dir = test::scratch_dir("html_browser_site");
  std::filesystem::create_directories(dir / "scenarios");
  std::filesystem::create_directories(dir / "assets");
  std::filesystem::copy_file(reporter.chartjs_path(), dir / "assets" / "chart.min.js",
                             std::filesystem::copy_options::overwrite_existing);
  {
    std::ofstream index(dir / "index.html");
    render_site_index(index, site);
    std::ofstream page(dir / series.page);
    render_site_series(page, site, series, "../assets/chart.min.js");
  }
  const int expected = static_cast<int>(site_series_charts(series).at("charts").size());
  ASSERT_EQ(expected, 2);
  for (const int width : {900, 1400}) {
    const std::string where = "site page " + std::to_string(width) + " px";
    const std::string size = " --window-size=" + std::to_string(width) + ",2400";
    const auto page = dir / series.page;
    const auto dom = test::run_command(chromium_command(browser, dir) + size + " --dump-dom file://" + page.string() +
                                       " 2>/dev/null");
    ASSERT_EQ(dom.exit_code, 0);
    EXPECT_EQ(attribute(dom.output, "data-drawn"), expected) << where << ": " << status_text(dom.output, "data-errors");
    EXPECT_EQ(attribute(dom.output, "data-errors"), 0) << where;
    EXPECT_EQ(expect_charts_laid_out(dom.output, where), expected) << where;
    EXPECT_EQ(status_text(dom.output, "data-page-overflow"), "0") << where << ": the page scrolls sideways";
    const auto index = test::run_command(chromium_command(browser, dir) + size + " --dump-dom file://" +
                                         (dir / "index.html").string() + " 2>/dev/null");
    ASSERT_EQ(index.exit_code, 0);
    EXPECT_EQ(attribute(index.output, "data-errors"), 0) << "index " << where;
    EXPECT_EQ(status_text(index.output, "data-page-overflow"), "0") << "index " << where;
    const auto shot = std::filesystem::path(TB_BINARY_DIR) / ("history_site_" + std::to_string(width) + ".png");
    std::filesystem::remove(shot);
    const auto res = test::run_command(chromium_command(browser, dir) + size + " --screenshot=" + shot.string() +
                                       " file://" + page.string() + " 2>/dev/null");
    EXPECT_EQ(res.exit_code, 0);
    ASSERT_TRUE(std::filesystem::exists(shot));
    EXPECT_GT(std::filesystem::file_size(shot), 20000u) << "a blank page compresses far smaller";
  }
}

// Clicks the scenario table's samples/s header twice (a script the test appends to the page)
// and reads the column's order after each click from data attributes.
TEST(HtmlReportInBrowser, ClickingAHeaderSortsNumerically) {
  const std::string browser = find_chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed";
  HtmlReporter reporter("/nonexistent/chart.min.js");  // sorting needs no Chart.js
  const auto dir = test::scratch_dir("html_browser_sort");
  const auto page = dir / "report.html";
  write_html(test::fixture_run(), reporter, page);
  std::string html = test::read_text(page);
  const std::string clicker = R"(<script>(function () {
  var t = document.getElementById('tb-scenarios'), head = t.rows[0].cells, col = -1;
  for (var i = 0; i < head.length; i++) if (head[i].textContent === 'samples/s') col = i;
  function column() {
    var v = [];
    for (var r = 1; r < t.rows.length; r++)
      if (t.rows[r].cells.length === head.length) v.push(t.rows[r].cells[col].textContent);
    return v.join('|');
  }
  head[col].click(); t.dataset.first = column();
  head[col].click(); t.dataset.second = column();
})();</script>
</body>)";
  html.replace(html.rfind("</body>"), 7, clicker);
  std::ofstream(page) << html;

  const auto dom =
      test::run_command(chromium_command(browser, dir) + " --dump-dom file://" + page.string() + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0);
  auto values = [&](const std::string& name) {
    std::smatch m;
    std::vector<double> v;
    if (!std::regex_search(dom.output, m, std::regex("id=\"tb-scenarios\"[^>]*data-" + name + "=\"([^\"]*)\"")))
      return v;
    std::stringstream ss(m[1].str());
    for (std::string cell; std::getline(ss, cell, '|');) v.push_back(std::stod(cell));
    return v;
  };
  const auto ascending = values("first"), descending = values("second");
  ASSERT_GT(ascending.size(), 3u) << dom.output.substr(0, 2000);
  EXPECT_TRUE(std::is_sorted(ascending.begin(), ascending.end()));
  EXPECT_TRUE(std::is_sorted(descending.rbegin(), descending.rend()));
  EXPECT_EQ(ascending.size(), descending.size());
}

TEST(HtmlReportInBrowser, WithoutChartJsTheNoteShowsAndNothingThrows) {
  const std::string browser = find_chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed";
  HtmlReporter reporter("/nonexistent/chart.min.js");
  const auto dir = test::scratch_dir("html_browser_nocharts");
  const auto page = dir / "report.html";
  write_html(test::fixture_run(), reporter, page);

  const auto dom =
      test::run_command(chromium_command(browser, dir) + " --dump-dom file://" + page.string() + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_NE(dom.output.find("id=\"tb-charts-missing\""), std::string::npos);
  EXPECT_EQ(attribute(dom.output, "data-drawn"), 0);
  EXPECT_EQ(attribute(dom.output, "data-errors"), 0);
  EXPECT_NE(dom.output.find("<table id=\"tb-scenarios\">"), std::string::npos);
}

}  // namespace
}  // namespace tb
