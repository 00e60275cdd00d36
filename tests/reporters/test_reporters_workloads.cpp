// Reporters on a run of several workloads (tests/helpers/synthetic_runs.hpp three_workload_run:
// resnet50, vit_b_16 and gpt2, as scenarios/standard.json measures them), annotated as
// finish_run does: every speed-up, verdict, effect and geomean is within a workload, against its
// own scenario at the baseline's settings, and the reports group by workload (issue 26).
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/reporters/html_chart_data.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include "tests/helpers/synthetic_runs.hpp"
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using test::expect_golden;
using test::render;

RunResult workloads_run() {
  RunResult run = tb::testing::three_workload_run();
  annotate_run(run);
  return run;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(WorkloadsReportGolden, Console) {
  expect_golden("reporters/workloads/console.txt", render("console", workloads_run()));
}
TEST(WorkloadsReportGolden, Markdown) { expect_golden("reporters/workloads/report.md", render("md", workloads_run())); }

TEST(WorkloadsReport, ConsoleGroupsByWorkloadWithAGeomeanEach) {
  const std::string text = render("console", workloads_run());
  // Each workload's rows under the scenario they are measured against; GPT-2 bf16 is 4x its own
  // fp32, not 0.3x ResNet-50's.
  EXPECT_TRUE(
      std::regex_search(text, std::regex("\ngpt2: speed-ups against gpt2/fp32/w0/a1/b8\n"
                                         "gpt2/fp32/w0/a1/b8 +ok .* baseline .*\n"
                                         "gpt2/amp_bf16/w0/a1/b8 +ok .* 4\\.0[0-9]x \\[[0-9.]+, [0-9.]+\\] faster")))
      << text;
  EXPECT_NE(text.find("\nvit_b_16: speed-ups against vit_b_16/fp32/w0/a1/b8\n"), std::string::npos);
  EXPECT_EQ(text.find("0.08x"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(
      text, std::regex("geomean speedup by workload\n"
                       "  resnet50: 1\\.5[0-9]x \\[[0-9.]+, [0-9.]+\\] against resnet50/fp32/w0/a1/b8\n"
                       "  vit_b_16: 2\\.0[0-9]x .* against vit_b_16/fp32/w0/a1/b8\n"
                       "  gpt2: 4\\.0[0-9]x .* against gpt2/fp32/w0/a1/b8\n"
                       "ok 10, failed 0")))
      << text;
  // Effects per workload: bf16 is 1.25x on resnet50 and 4x on gpt2, never averaged over both.
  EXPECT_TRUE(std::regex_search(text, std::regex("  resnet50: precision amp_bf16 vs fp32: 1\\.2[0-9]x")));
  EXPECT_TRUE(std::regex_search(text, std::regex("  gpt2: precision amp_bf16 vs fp32: 4\\.0[0-9]x")));
  EXPECT_EQ(text.find("\n  precision amp_bf16"), std::string::npos) << text;
}

TEST(WorkloadsReport, MarkdownAndHtmlHaveATableAndAGeomeanPerWorkload) {
  const RunResult run = workloads_run();
  const std::string md = render("md", run);
  const std::string first_line = md.substr(0, md.find('\n'));
  EXPECT_TRUE(
      std::regex_search(first_line, std::regex("geomean speedup \\*\\*resnet50\\*\\* 1\\.5[0-9]x .* · "
                                               "\\*\\*vit_b_16\\*\\* 2\\.0[0-9]x .* · \\*\\*gpt2\\*\\* 4\\.0[0-9]x")))
      << first_line;
  EXPECT_NE(md.find("**gpt2**, speed-ups against `gpt2/fp32/w0/a1/b8`:\n\n| scenario |"), std::string::npos) << md;
  EXPECT_EQ(count(md, "| scenario | status |"), 3u);

  HtmlReporter reporter("");
  const std::string html = render(reporter, run);
  EXPECT_NE(html.find("<h3 class=\"workload\">vit_b_16 <span class=\"meta\">speed-ups against "
                      "<code>vit_b_16/fp32/w0/a1/b8</code></span></h3>\n<table id=\"tb-scenarios-2\">"),
            std::string::npos);
  EXPECT_NE(html.find("<table id=\"tb-scenarios\">"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"tb-scenarios-3\">"), std::string::npos);
  EXPECT_TRUE(std::regex_search(html, std::regex("geomean speed-up resnet50 <strong>1\\.5[0-9]x [^<]*</strong> · "
                                                 "vit_b_16 <strong>2\\.0[0-9]x [^<]*</strong> · gpt2 <strong>4\\.0")));
  const auto data = html_chart_data(run);
  bool speedup_chart = false;
  for (const auto& chart : data.at("charts"))
    if (chart.at("id") == "speedup") {
      speedup_chart = true;
      EXPECT_EQ(chart.at("title"), "Speed-up vs its workload's baseline (median step time, 95% CI)");
      for (const auto& v : chart.at("values")) EXPECT_GT(v.get<double>(), 1.0);  // every one faster than its own
    }
  EXPECT_TRUE(speedup_chart);
  // The CSV names each scenario's own baseline.
  const std::string csv = render("csv", run);
  EXPECT_NE(csv.find("gpt2/fp32/w0/a1/b8"), std::string::npos);
}

TEST(WorkloadsReport, AWorkloadWithoutItsBaselineSaysSo) {
  RunResult run = tb::testing::three_workload_run();
  for (auto& s : run.scenarios)
    if (s.id == "gpt2/fp32/w0/a1/b8") {
      s.status = ScenarioStatus::failed;
      s.message = "planted";
    }
  annotate_run(run);
  const std::string text = render("console", run);
  EXPECT_NE(text.find("\ngpt2: no scenario at the baseline's settings, no speed-ups\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  gpt2: - (no scenario at the baseline's settings)\n"), std::string::npos) << text;
  EXPECT_NE(render("md", run).find("**gpt2**: no scenario at the baseline's settings, no speed-ups."),
            std::string::npos);
}

// Results written before speed-ups were per workload (GPT-2 against ResNet-50's baseline, as
// results/reference/gpu-h200/standard/ has them) are reported per workload all the same.
TEST(WorkloadsReport, OldResultsComparedAcrossWorkloadsAreReportedPerWorkload) {
  RunResult run = workloads_run();
  const std::string expected = render("console", run);
  const ScenarioResult* baseline = find_scenario(run, run.baseline_id);
  for (auto& s : run.scenarios) {
    if (&s == baseline) continue;
    s.comparison->baseline_id = run.baseline_id;
    s.comparison->speedup = baseline->step_time_s.median / s.step_time_s.median;
    s.comparison->verdict = "slower";
  }
  run.summary->workloads.clear();
  EXPECT_EQ(render("console", run), expected);
}

}  // namespace
}  // namespace tb
