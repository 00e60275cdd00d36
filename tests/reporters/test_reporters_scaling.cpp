// Reporters on a data-parallel run (tests/fixtures/results_data_parallel.json: mlp at 1 and 2
// Gloo ranks), analysed as finish_run does: goldens per format, and the figures every report
// must carry (global and per-rank throughput, efficiency, exposed vs overlapped communication,
// bus bandwidth, the per-rank table, the projection labelled as a model and its check).
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/reporters/csv_reporter.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using test::expect_golden;
using test::render;

RunResult data_parallel_run() {
  RunResult run = load_results(std::string(TB_SOURCE_DIR) + "/tests/fixtures/results_data_parallel.json");
  annotate_run(run);
  return run;
}

bool has(const std::string& text, const std::string& pattern) { return std::regex_search(text, std::regex(pattern)); }

TEST(ScalingReportGolden, Console) {
  expect_golden("reporters/data_parallel/console.txt", render("console", data_parallel_run()));
}
TEST(ScalingReportGolden, Markdown) {
  expect_golden("reporters/data_parallel/report.md", render("md", data_parallel_run()));
}
TEST(ScalingReportGolden, Csv) {
  expect_golden("reporters/data_parallel/results.csv", render("csv", data_parallel_run()));
}
TEST(ScalingReportGolden, HtmlTables) {
  // The page's tables only: its assets and chart data have goldens of their own.
  HtmlReporter reporter("");
  const std::string html = render(reporter, data_parallel_run());
  const auto start = html.find("<h2>Data parallel</h2>");
  const auto end = html.find("<h2>Environment</h2>");
  ASSERT_NE(start, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  expect_golden("reporters/data_parallel/tables.html", html.substr(start, end - start));
}

// 2 ranks x 32 samples in 12.5 ms against 32 in 10 ms: 5120 samples/s, 2560 per rank, 80%.
TEST(ScalingReport, ConsoleShowsThroughputEfficiencyCommAndTheModel) {
  const std::string text = render("console", data_parallel_run());
  EXPECT_TRUE(has(
      text, R"(mlp/fp32/w0/a1/b32/r2 +2 +weak +64 +5120\.0 +2560\.0 +80\.0% +1\.500 +0\.700 +2\.200 +0\.483 +gloo)"))
      << text;
  EXPECT_TRUE(has(text, R"(mlp/fp32/w0/a1/b32/r2 +1 +ci-runner +12\.500 +2560\.0 +10\.400 +2\.100 +\+0\.0%)")) << text;
  EXPECT_TRUE(has(text, R"(mlp/fp32/w0/a1/b32/r2 +0 +ci-runner .* \+5\.8%)")) << text;  // the straggler
  EXPECT_TRUE(has(text, R"(\nprojected \(model\)\n)")) << text;
  EXPECT_TRUE(has(text, "projected \\(model\\), not a measurement: calibrated on mlp/fp32/w0/a1/b32/r2")) << text;
  EXPECT_TRUE(has(text, "gloo over loopback, one node \\(2 ranks\\)")) << text;
  EXPECT_TRUE(has(text, R"(\n +512 +16384 )")) << text;  // a projected size
  EXPECT_TRUE(has(text, "projection vs measured")) << text;
  EXPECT_TRUE(has(text, "calibrated at this point")) << text;
  EXPECT_TRUE(has(text, "limits: one node's measured bus bandwidth")) << text;
}

TEST(ScalingReport, MarkdownAndHtmlCarryTheSameTables) {
  const RunResult run = data_parallel_run();
  const std::string md = render("md", run);
  EXPECT_TRUE(has(md, R"(\| `mlp/fp32/w0/a1/b32/r2` \| 2 \| weak \| 64 \| 5120\.0 \| 2560\.0 \| 80\.0% \|)")) << md;
  EXPECT_TRUE(has(md, R"(\*\*projected \(model\)\*\*)")) << md;
  EXPECT_TRUE(has(md, "Projection vs measured")) << md;
  HtmlReporter reporter("");
  const std::string html = render(reporter, run);
  EXPECT_TRUE(has(html, R"(<table id="tb-data-parallel">)")) << html;
  EXPECT_TRUE(has(html, R"(<table id="tb-ranks">)"));
  EXPECT_TRUE(has(html, R"(<h4>projected \(model\)</h4>)"));
  EXPECT_TRUE(has(html, R"(<table id="tb-projection-check-0">)"));
}

TEST(ScalingReport, CsvHasTheDataParallelColumns) {
  const std::string csv = render("csv", data_parallel_run());
  for (const char* column : {"world_size", "scaling", "scaling_efficiency", "exposed_comm_s", "overlapped_comm_s",
                             "busbw_GBps", "slowest_rank_compute_s"})
    EXPECT_TRUE(has(csv.substr(0, csv.find("\r\n")), std::string("(^|,)") + column + "(,|$)")) << column;
  EXPECT_TRUE(has(csv, R"(,0\.8,mlp/fp32/w0/a1/b32,)")) << csv;  // efficiency and its reference
}

TEST(ScalingReport, NoDataParallelSectionInRunsWithoutIt) {
  RunResult run = data_parallel_run();
  run.scenarios.pop_back();
  annotate_run(run);
  for (const char* format : {"console", "md"}) {
    const std::string text = render(format, run);
    EXPECT_EQ(text.find("Data parallel"), std::string::npos) << format;
    EXPECT_EQ(text.find("projected"), std::string::npos) << format;
  }
}

}  // namespace
}  // namespace tb
