// A capacity run's scenarios are different models and batches: no speed-up, verdict or geomean
// between them in any report, while an ordinary run keeps its comparisons.
#include <trainbench/reporters/capacity_comparisons.hpp>

#include <regex>

#include <gtest/gtest.h>

#include <trainbench/reporters/html_chart_data.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using test::fixture_run;
using test::render;

// What `trainbench capacity` writes: one scenario per searched model × precision, at its best
// batch (the fixture's scenarios keep their old comparisons, as files from before the fix do).
RunResult capacity_shaped_run() {
  RunResult run = fixture_run();
  std::vector<ScenarioResult> kept;
  for (const auto& s : run.scenarios)
    if (s.id == "mlp/fp32/w0/a1/b64" || s.id == "transformer/amp_bf16/w0/a1/b32") kept.push_back(s);
  run.scenarios = kept;
  BatchSearchEntry& transformer = run.capacity->batch_search.front();
  transformer.best_batch = 32;
  BatchSearchEntry mlp = transformer;
  mlp.model = "mlp";
  mlp.precision = "fp32";
  mlp.best_batch = 64;
  mlp.max_batch = 8192;
  mlp.hit_limit = true;
  run.capacity->batch_search.push_back(mlp);
  return run;
}

TEST(CapacityComparisons, OnlyTheCapacityShapeCounts) {
  EXPECT_FALSE(report::is_capacity_run(fixture_run()));
  EXPECT_TRUE(report::is_capacity_run(capacity_shaped_run()));
}

TEST(CapacityComparisons, NoSpeedupsInAnyReportOfACapacityRun) {
  const RunResult run = capacity_shaped_run();
  ASSERT_TRUE(run.scenarios.back().comparison.has_value());
  const std::regex speedup("[0-9]\\.[0-9]+x");
  for (const char* format : {"md", "console", "csv"}) {
    const std::string text = render(format, run);
    EXPECT_FALSE(std::regex_search(text, speedup)) << format << ":\n" << text;
    EXPECT_EQ(text.find("faster"), std::string::npos) << format;
  }
  HtmlReporter html("/nonexistent/chart.min.js");
  const std::string page = render(html, run);
  EXPECT_FALSE(std::regex_search(page, speedup));
  EXPECT_EQ(page.find("\"id\": \"speedup\""), std::string::npos);
  // An ordinary run keeps them.
  EXPECT_TRUE(std::regex_search(render("md", fixture_run()), speedup));
}

TEST(CapacityComparisons, MaxBatchSaysWhenTheSearchLimitFit) {
  const RunResult run = capacity_shaped_run();
  HtmlReporter html("/nonexistent/chart.min.js");
  const std::string page = render(html, run);
  const std::string md = render("md", run);
  EXPECT_NE(page.find("<td class=\"num\">≥8192 (search limit)</td>"), std::string::npos);
  EXPECT_NE(md.find("| ≥8192 (search limit) |"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">512</td>"), std::string::npos) << "a found maximum stays a number";
}

}  // namespace
}  // namespace tb
