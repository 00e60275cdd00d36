#include <trainbench/reporters/comparison_outcome.hpp>

#include <gtest/gtest.h>

namespace {

using namespace tb;
using Kind = ScenarioOutcome::Kind;

ScenarioComparison compared(const std::string& id, double change_pct) {
  ScenarioComparison s;
  s.id = id;
  s.compared = true;
  s.old_median_s = 0.010;
  s.new_median_s = 0.010 * (1 + change_pct / 100);
  s.change_pct = change_pct;
  s.speedup = {1 / (1 + change_pct / 100), 0.9, 1.1, true};
  s.verdict = stats::Verdict::noisy;
  return s;
}

// Every way a scenario can come out of a comparison, and the one outcome each gets; a broken
// scenario fails even when it also looks like something else.
TEST(ComparisonOutcome, OneRulePerScenario) {
  RunComparison c;
  c.scenarios.push_back(compared("same", 0.5));
  auto slow = compared("slow", 12);
  slow.regression = true;
  slow.gate_pct = 5;
  c.scenarios.push_back(slow);
  auto loaded = compared("loaded", 30);
  loaded.contended = true;
  loaded.contention = "old: steal 24%";
  c.scenarios.push_back(loaded);
  auto short_run = compared("short", 1);
  short_run.unjudged = true;
  c.scenarios.push_back(short_run);
  ScenarioComparison failed_old;
  failed_old.id = "failed-old";
  failed_old.old_status = ScenarioStatus::failed;
  c.scenarios.push_back(failed_old);
  ScenarioComparison broken;
  broken.id = "broken";
  broken.broken = true;
  broken.contended = true;
  broken.new_status = ScenarioStatus::crashed;
  c.scenarios.push_back(broken);
  c.missing_in_new = {"gone"};

  const auto o = scenario_outcomes(c);
  ASSERT_EQ(o.size(), 7u);
  const std::vector<std::pair<std::string, Kind>> expected = {
      {"same", Kind::passed},        {"slow", Kind::failed},   {"loaded", Kind::skipped}, {"short", Kind::skipped},
      {"failed-old", Kind::skipped}, {"broken", Kind::failed}, {"gone", Kind::failed}};
  for (std::size_t i = 0; i < o.size(); ++i) {
    EXPECT_EQ(o[i].id, expected[i].first);
    EXPECT_EQ(o[i].kind, expected[i].second) << o[i].id;
    EXPECT_EQ(o[i].reason.empty(), o[i].kind == Kind::passed) << o[i].id << ": " << o[i].reason;
  }
  EXPECT_EQ(o[1].reason, "slower beyond the gate (5%)");
  EXPECT_EQ(
      o[1].figures.rfind("old 10.000 ms, new 11.200 ms per step, change +12.0%, speedup 0.893x [0.900, 1.100]", 0), 0u)
      << o[1].figures;
  EXPECT_EQ(o[2].reason, "not judged: contended measurements (old: steal 24%)");
  EXPECT_EQ(o[4].reason, "not compared: old failed, new ok");
  EXPECT_EQ(o[4].figures, "") << "nothing measured on both sides";
  EXPECT_EQ(o[5].reason, "broken in NEW: crashed");
  EXPECT_EQ(o[6].reason, "ok in OLD, missing in NEW");
}

}  // namespace
