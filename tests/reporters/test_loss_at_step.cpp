// The loss column compares every scenario at one step: the shortest curve's length.
#include <trainbench/reporters/loss_at_step.hpp>

#include <regex>

#include <gtest/gtest.h>

#include <trainbench/reporters/html_reporter.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using test::fixture_run;
using test::render;

TEST(LossAtStep, CommonStepIsTheShortestOkCurve) {
  RunResult run = fixture_run();
  std::size_t shortest = 0;
  for (const auto& s : run.scenarios)
    if (s.status == ScenarioStatus::ok && !s.loss_curve.empty())
      shortest = shortest == 0 ? s.loss_curve.size() : std::min(shortest, s.loss_curve.size());
  ASSERT_GT(shortest, 1u);
  EXPECT_EQ(report::common_loss_step(run), shortest);
  for (auto& s : run.scenarios) s.loss_curve.clear();
  EXPECT_EQ(report::common_loss_step(run), 0u);
  EXPECT_EQ(report::loss_column_title(0), "loss start→end");
}

TEST(LossAtStep, CellsShowTheLossAtThatStep) {
  ScenarioResult s;
  s.loss_curve = {2.5, 2.0, 1.5, 1.0};
  s.loss_start = 2.5;
  s.loss_end = 1.0;
  EXPECT_EQ(report::loss_cell(s, 2), "2.5000→2.0000");
  EXPECT_EQ(report::loss_cell(s, 4), "2.5000→1.0000");
  EXPECT_EQ(report::loss_cell(s, 9), "2.5000→1.0000") << "shorter curve: the recorded start→end";
  EXPECT_EQ(report::loss_column_title(4), "loss step 1→4");
}

TEST(LossAtStep, MarkdownAndHtmlNameTheStep) {
  const RunResult run = fixture_run();
  const std::string n = std::to_string(report::common_loss_step(run));
  EXPECT_TRUE(std::regex_search(render("md", run), std::regex("\\| loss step 1→" + n + " \\|")));
  HtmlReporter html("/nonexistent/chart.min.js");
  EXPECT_NE(render(html, run).find("<th>loss step 1→" + n + "</th>"), std::string::npos);
}

}  // namespace
}  // namespace tb
