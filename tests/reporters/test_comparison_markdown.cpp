#include <trainbench/reporters/comparison_markdown.hpp>

#include <gtest/gtest.h>

namespace {

using namespace tb;

ScenarioComparison compared(const std::string& id, double change_pct, stats::Verdict verdict = stats::Verdict::same) {
  ScenarioComparison s;
  s.id = id;
  s.compared = true;
  s.old_median_s = 0.010;
  s.new_median_s = 0.010 * (1 + change_pct / 100);
  s.change_pct = change_pct;
  const double r = 1 / (1 + change_pct / 100);
  s.speedup = {r, r * 0.98, r * 1.02, true};
  s.verdict = verdict;
  return s;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ComparisonMarkdown, HeadingSaysTheGatesAnswerAndFailuresComeFirst) {
  RunComparison c;
  c.old_run_id = "ab-1-old";
  c.new_run_id = "ab-1-new";
  c.paired = true;
  c.compared = 3;
  c.geomean_speedup = stats::RatioInterval{0.95, 0.93, 0.97, true};
  c.scenarios.push_back(compared("mlp/fp32/b32", 1.0));
  c.scenarios.push_back(compared("mlp/fp32/b64", 3.0, stats::Verdict::slower));
  auto slow = compared("mlp/amp_bf16/b64", 12.0, stats::Verdict::slower);
  slow.regression = true;
  slow.gate_pct = 5;
  c.scenarios.push_back(slow);

  const std::string md = markdown_from_comparison(c, "trainbench ab", 5.0);
  EXPECT_EQ(
      md.rfind("### trainbench ab: 1 of 3 scenarios failed the 5% gate\n\nOLD `ab-1-old` vs NEW `ab-1-new`: paired", 0),
      0u)
      << md;
  EXPECT_NE(md.find("Geomean speedup OLD/NEW 0.950x [0.930, 0.970]."), std::string::npos) << md;
  const auto failed = md.find(
      "| **failed** | `mlp/amp_bf16/b64` | 10.000 | 11.200 | +12.0% | 0.893x [0.875, 0.911] | "
      "slower | slower beyond the gate (5%) |");
  const auto b64 = md.find("`mlp/fp32/b64`"), b32 = md.find("`mlp/fp32/b32`");
  ASSERT_NE(failed, std::string::npos) << md;
  EXPECT_LT(failed, b64);
  EXPECT_LT(b64, b32) << "the larger slowdown first";
  EXPECT_EQ(md.find("<details>"), std::string::npos);

  c.scenarios[2].regression = false;
  EXPECT_NE(markdown_from_comparison(c, "trainbench ab", 5.0).find("all 3 scenarios passed the 5% gate"),
            std::string::npos);
  c.scenarios[0].contended = true;
  c.scenarios[0].contention = "new: steal 12%";
  EXPECT_NE(markdown_from_comparison(c, "trainbench ab", 5.0).find("the gate did not judge 1 of 3 scenarios"),
            std::string::npos);
  // Without a gate the heading counts verdicts instead of claiming a pass.
  const std::string ungated = markdown_from_comparison(c, "trainbench compare", std::nullopt);
  EXPECT_NE(ungated.find("### trainbench compare: 3 scenarios compared, 2 slower and 0 faster at 95% (no gate)"),
            std::string::npos)
      << ungated;
}

TEST(ComparisonMarkdown, LongMatricesFoldIntoDetailsAndCellsAreEscaped) {
  RunComparison c;
  c.old_run_id = "a";
  c.new_run_id = "b|c";
  for (int i = 0; i < 30; ++i) c.scenarios.push_back(compared("s" + std::to_string(i), i * 0.1));
  c.missing_in_new = {"gone|id"};
  const std::string md = markdown_from_comparison(c, "trainbench compare", 5.0, 10);
  EXPECT_EQ(count(md, "| **failed** |") + count(md, "| passed |"), 31u);
  EXPECT_EQ(count(md, "<details><summary>21 more scenarios</summary>"), 1u) << md;
  EXPECT_LT(md.find("`gone\\|id`"), md.find("<details>")) << "the failure stays visible";
  EXPECT_NE(md.find("NEW `b\\|c`"), std::string::npos);
  EXPECT_NE(md.find("| **failed** | `gone\\|id` | - | - | - | - | - | ok in OLD, missing in NEW |"), std::string::npos)
      << md;
}

}  // namespace
