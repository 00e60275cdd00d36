// Opens the HTML report in headless Chromium: every chart listed in the data block must be drawn
// without script errors, and a screenshot is left at TB_BINARY_DIR/report_screenshot.png for
// people to look at. Skipped where Chromium or Chart.js is not installed.
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include <trainbench/reporters/html_chart_data.hpp>
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
         " --virtual-time-budget=5000 --user-data-dir=" + (scratch / "profile").string();
}

int attribute(const std::string& dom, const std::string& name) {
  const std::regex re("id=\"tb-chart-status\"[^>]*" + name + "=\"(-?[0-9]+)\"");
  std::smatch m;
  if (!std::regex_search(dom, m, re)) return -1;
  return std::stoi(m[1]);
}

void write_html(const RunResult& run, HtmlReporter& reporter, const std::filesystem::path& path) {
  std::ofstream file(path);
  ReportContext ctx;
  ctx.out = &file;
  reporter.render(run, ctx);
}

TEST(HtmlReportInBrowser, DrawsEveryChartWithoutErrors) {
  const std::string browser = find_chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed";
  HtmlReporter reporter;
  if (!std::filesystem::exists(reporter.chartjs_path()))
    GTEST_SKIP() << "Chart.js not found at '" << reporter.chartjs_path() << "' (libjs-chart.js)";

  const auto run = test::fixture_run();
  const auto dir = test::scratch_dir("html_browser");
  const auto page = dir / "report.html";
  write_html(run, reporter, page);
  const int expected = static_cast<int>(html_chart_data(run).at("charts").size());
  ASSERT_GT(expected, 0);

  const auto dom = test::run_command(chromium_command(browser, dir) + " --dump-dom file://" +
                                     page.string() + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_EQ(attribute(dom.output, "data-expected"), expected);
  EXPECT_EQ(attribute(dom.output, "data-drawn"), expected) << "window.__tbChartsDrawn";
  EXPECT_EQ(attribute(dom.output, "data-errors"), 0) << "window.__tbChartErrors";
  EXPECT_EQ(dom.output.find("tb-charts-missing"), std::string::npos);

  const auto shot = std::filesystem::path(TB_BINARY_DIR) / "report_screenshot.png";
  std::filesystem::remove(shot);
  const auto res = test::run_command(chromium_command(browser, dir) + " --window-size=1280,2400" +
                                     " --screenshot=" + shot.string() + " file://" + page.string());
  EXPECT_EQ(res.exit_code, 0) << res.output.substr(0, 2000);
  ASSERT_TRUE(std::filesystem::exists(shot));
  EXPECT_GT(std::filesystem::file_size(shot), 20000u) << "a blank page compresses far smaller";
}

TEST(HtmlReportInBrowser, WithoutChartJsTheNoteShowsAndNothingThrows) {
  const std::string browser = find_chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed";
  HtmlReporter reporter("/nonexistent/chart.min.js");
  const auto dir = test::scratch_dir("html_browser_nocharts");
  const auto page = dir / "report.html";
  write_html(test::fixture_run(), reporter, page);

  const auto dom = test::run_command(chromium_command(browser, dir) + " --dump-dom file://" +
                                     page.string() + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_NE(dom.output.find("id=\"tb-charts-missing\""), std::string::npos);
  EXPECT_EQ(attribute(dom.output, "data-drawn"), 0);
  EXPECT_EQ(attribute(dom.output, "data-errors"), 0);
  EXPECT_NE(dom.output.find("<table id=\"tb-scenarios\">"), std::string::npos);
}

}  // namespace
}  // namespace tb
