#include <trainbench/reporters/junit_report.hpp>

#include <gtest/gtest.h>

namespace {

using namespace tb;

ScenarioComparison compared(const std::string& id, double old_ms, double new_ms) {
  ScenarioComparison s;
  s.id = id;
  s.compared = true;
  s.old_median_s = old_ms / 1e3;
  s.new_median_s = new_ms / 1e3;
  s.speedup = {old_ms / new_ms, old_ms / new_ms * 0.98, old_ms / new_ms * 1.02, true};
  s.change_pct = (new_ms / old_ms - 1) * 100;
  s.verdict = stats::Verdict::same;
  return s;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(JUnitReport, OneTestCasePerScenarioWithItsOutcome) {
  RunComparison c;
  c.scenarios.push_back(compared("mlp/fp32/w0/a1/b64", 10, 10.1));
  auto slow = compared("mlp/amp_bf16/w0/a1/b64", 10, 11);
  slow.regression = true;
  slow.gate_pct = 5;
  slow.verdict = stats::Verdict::slower;
  c.scenarios.push_back(slow);
  auto loaded = compared("mlp/fp32/w2/a1/b64", 10, 12);
  loaded.contended = true;
  loaded.contention = "new: other processes used 1.9 cores";
  c.scenarios.push_back(loaded);
  ScenarioComparison broken;
  broken.id = "mlp/fp32/w0/a4/b64";
  broken.broken = true;
  broken.new_status = ScenarioStatus::oom;
  c.scenarios.push_back(broken);
  c.missing_in_new = {"mlp/fp32/w0/a1/b256"};

  const std::string xml = junit_from_comparison(c, "trainbench compare");
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"trainbench compare\" tests=\"5\" "
                      "failures=\"3\" errors=\"0\" skipped=\"1\">",
                      0),
            0u)
      << xml;
  EXPECT_EQ(count(xml, "<testcase "), 5u);
  EXPECT_NE(xml.find("name=\"mlp/amp_bf16/w0/a1/b64\">\n      <failure type=\"regression\" message=\"slower beyond the "
                     "gate (5%): old 10.000 ms, new 11.000 ms per step, change +10.0%"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"not judged: contended measurements (new: other processes used 1.9 cores)\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("message=\"broken in NEW: oom\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("message=\"ok in OLD, missing in NEW\""), std::string::npos) << xml;
  EXPECT_EQ(xml.substr(xml.size() - 29), "  </testsuite>\n</testsuites>\n");
}

TEST(JUnitReport, ChangesFailOnlyWhereTheGateDoes) {
  TrendChange up;
  up.scenario_id = "a";
  up.change.ratio = 1.1;
  up.change.ratio_low = 1.05;
  up.change.ratio_high = 1.15;
  up.change.p_value = 0.005;
  up.before.run_id = "r39";
  up.after.run_id = "r40";
  up.regression = true;
  const std::string xml =
      junit_from_changes({{"a", {up}, {true}}, {"b", {up}, {false}}, {"c", {}, {}}}, "trainbench history --changes");
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"regression\" message=\"regression: step time +10.0% [+5.0%, +15.0%] from run r40 "
                     "(after r39), p 0.005\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"c\"/>"), std::string::npos) << xml;
}

TEST(JUnitReport, TextIsEscaped) {
  EXPECT_EQ(xml_escaped("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  EXPECT_EQ(xml_escaped(std::string("bell\a")), "bell?");
}

}  // namespace
