// The headline model every report formats: counts, the trouble test, the count sentence's parts,
// the geomean line and the scenario notes with their reasons.
#include <gtest/gtest.h>

#include <trainbench/reporters/headline.hpp>

namespace tb::report {
namespace {

ScenarioResult scenario(std::string id, ScenarioStatus status, std::string message = "") {
  ScenarioResult s;
  s.id = std::move(id);
  s.status = status;
  s.message = std::move(message);
  return s;
}

void make_contended(ScenarioResult& s, const std::string& reason) {
  Disturbance d;
  d.available = true;
  d.contended = true;
  d.reason = reason;
  s.disturbance = d;
}

void make_drifted(ScenarioResult& s) {
  LossParitySection lp;
  lp.reference_id = "mlp/fp32/w0/a1/b64";
  lp.rel_drift = 0.05;
  lp.tolerance = 0.01;
  lp.ok = false;
  s.loss_parity = lp;
}

std::vector<std::string> labels(const Headline& h) {
  std::vector<std::string> out;
  for (const auto& part : h.count_parts) out.push_back(std::to_string(part.count) + " " + part.label);
  return out;
}

TEST(Headline, ReasonOfNamesAMissingReason) {
  EXPECT_EQ(reason_of(scenario("a", ScenarioStatus::failed)), "(no reason recorded)");
  EXPECT_EQ(reason_of(scenario("a", ScenarioStatus::failed, "boom")), "boom");
}

TEST(Headline, CountsTheScenariosWithoutASummary) {
  RunResult run;
  run.scenarios = {scenario("a", ScenarioStatus::ok), scenario("b", ScenarioStatus::ok),
                   scenario("c", ScenarioStatus::failed, "x"), scenario("d", ScenarioStatus::skipped, "y"),
                   scenario("e", ScenarioStatus::crashed)};
  make_contended(run.scenarios[1], "load 3.2");
  const Headline h = headline_of(run);
  EXPECT_EQ(h.counts.ok, 2);
  EXPECT_EQ(h.counts.failed, 1);
  EXPECT_EQ(h.counts.skipped, 1);
  EXPECT_EQ(h.counts.crashed, 1);
  EXPECT_EQ(h.counts.contended, 1);
  EXPECT_EQ(h.counts.oom, 0);
}

TEST(Headline, TheSummaryCountsWinOverTheScenarios) {
  RunResult run;
  run.scenarios = {scenario("a", ScenarioStatus::ok)};
  SummarySection summary;
  summary.by_status[static_cast<int>(ScenarioStatus::ok)] = 5;
  summary.by_status[static_cast<int>(ScenarioStatus::oom)] = 2;
  run.summary = summary;
  const Headline h = headline_of(run);
  EXPECT_EQ(h.counts.ok, 5);
  EXPECT_EQ(h.counts.oom, 2);
  EXPECT_TRUE(h.trouble);
}

TEST(Headline, SkipsAloneAreNoTrouble) {
  RunResult run;
  run.scenarios = {scenario("a", ScenarioStatus::ok), scenario("b", ScenarioStatus::skipped, "needs CUDA")};
  EXPECT_FALSE(headline_of(run).trouble);
}

TEST(Headline, EveryOtherProblemIsTrouble) {
  for (const ScenarioStatus status : {ScenarioStatus::failed, ScenarioStatus::oom, ScenarioStatus::diverged,
                                      ScenarioStatus::interrupted, ScenarioStatus::crashed}) {
    RunResult run;
    run.scenarios = {scenario("a", ScenarioStatus::ok), scenario("b", status)};
    EXPECT_TRUE(headline_of(run).trouble) << to_string(status);
  }
  RunResult contended;
  contended.scenarios = {scenario("a", ScenarioStatus::ok)};
  make_contended(contended.scenarios[0], "load");
  EXPECT_TRUE(headline_of(contended).trouble);
  RunResult drifted;
  drifted.scenarios = {scenario("a", ScenarioStatus::ok)};
  make_drifted(drifted.scenarios[0]);
  const Headline h = headline_of(drifted);
  EXPECT_TRUE(h.trouble);
  EXPECT_EQ(h.loss_parity_warnings, 1);
  ASSERT_EQ(h.drifted.size(), 1u);
  EXPECT_EQ(h.drifted[0]->id, "a");
}

TEST(Headline, TheCountSentenceStatesTheFourMainCountsAlwaysAndTheRestWhenThereAreAny) {
  RunResult clean;
  clean.scenarios = {scenario("a", ScenarioStatus::ok)};
  EXPECT_EQ(labels(headline_of(clean)), (std::vector<std::string>{"1 ok", "0 failed", "0 skipped", "0 oom"}));

  RunResult run;
  run.scenarios = {scenario("a", ScenarioStatus::diverged), scenario("b", ScenarioStatus::interrupted),
                   scenario("c", ScenarioStatus::crashed), scenario("d", ScenarioStatus::ok),
                   scenario("e", ScenarioStatus::ok)};
  make_contended(run.scenarios[3], "load");
  make_drifted(run.scenarios[3]);
  make_drifted(run.scenarios[4]);
  const Headline h = headline_of(run);
  EXPECT_EQ(labels(h),
            (std::vector<std::string>{"2 ok", "0 failed", "0 skipped", "0 oom", "1 diverged", "1 interrupted",
                                      "1 crashed", "1 contended", "2 loss-parity warnings"}));
  // Cautions (not statuses) are the ones the HTML report highlights.
  for (const auto& part : h.count_parts)
    EXPECT_EQ(part.caution, part.label == "contended" || part.label == "loss-parity warnings") << part.label;

  run.scenarios.pop_back();
  EXPECT_EQ(labels(headline_of(run)).back(), "1 loss-parity warning");
}

TEST(Headline, NotesFollowTheRunWithTheStatusBeforeTheContention) {
  RunResult run;
  run.scenarios = {scenario("a", ScenarioStatus::ok), scenario("b", ScenarioStatus::failed),
                   scenario("c", ScenarioStatus::skipped, "needs CUDA"),
                   scenario("d", ScenarioStatus::skipped, "needs CUDA")};
  make_contended(run.scenarios[0], "load 3.2");
  make_contended(run.scenarios[1], "clocks throttled");
  const Headline h = headline_of(run);
  ASSERT_EQ(h.notes.size(), 5u);
  EXPECT_EQ(h.notes[0].kind, ScenarioNote::Kind::contended);
  EXPECT_EQ(h.notes[0].reason, "load 3.2");
  EXPECT_EQ(h.notes[1].kind, ScenarioNote::Kind::status);
  EXPECT_EQ(h.notes[1].scenario->id, "b");
  EXPECT_EQ(h.notes[1].reason, "(no reason recorded)");
  EXPECT_EQ(h.notes[2].kind, ScenarioNote::Kind::contended);
  EXPECT_EQ(h.notes[2].reason, "clocks throttled");
  EXPECT_EQ(h.notes[3].scenario->id, "c");
  EXPECT_EQ(h.notes[4].scenario->id, "d");
  ASSERT_EQ(h.skips.size(), 1u);
  EXPECT_EQ(h.skips[0].reason, "needs CUDA");
  EXPECT_EQ(h.skips[0].ids, (std::vector<std::string>{"c", "d"}));
}

TEST(Headline, NoGeomeanWithoutABaseline) {
  RunResult run;
  run.scenarios = {scenario("a", ScenarioStatus::ok)};
  const Headline h = headline_of(run);
  EXPECT_FALSE(h.geomean.shown);
  EXPECT_FALSE(h.geomean.per_workload());
}

TEST(Headline, OneWorkloadHasTheRunsGeomean) {
  RunResult run;
  run.baseline_id = "a";
  run.scenarios = {scenario("a", ScenarioStatus::ok), scenario("b", ScenarioStatus::ok)};
  EXPECT_TRUE(headline_of(run).geomean.shown);
  EXPECT_FALSE(headline_of(run).geomean.value) << "a run without its summary has no geomean";
  SummarySection summary;
  summary.geomean = GeomeanSpeedup{1.24, 1.21, 1.28, true};
  run.summary = summary;
  const Headline h = headline_of(run);
  EXPECT_FALSE(h.geomean.per_workload());
  EXPECT_EQ(h.geomean.value, "1.24x [1.21, 1.28]");
}

TEST(Headline, SeveralWorkloadsHaveAGeomeanEach) {
  RunResult run;
  run.baseline_id = "mlp/fp32/w0/a1/b64";
  ScenarioResult mlp = scenario("mlp/fp32/w0/a1/b64", ScenarioStatus::ok);
  ScenarioResult gpt = scenario("transformer/fp32/w0/a1/b32", ScenarioStatus::ok);
  gpt.params.model = "transformer";
  ScenarioResult resnet = scenario("resnet50/fp32/w0/a1/b32", ScenarioStatus::ok);
  resnet.params.model = "resnet50";
  run.scenarios = {mlp, gpt, resnet};
  SummarySection summary;
  summary.workloads = {{"mlp", "mlp/fp32/w0/a1/b64", 1, GeomeanSpeedup{0.61, 0.60, 0.62, true}},
                       {"transformer", "transformer/fp32/w0/a1/b32", 1, GeomeanSpeedup{1.60, 1.60, 1.60, false}},
                       {"resnet50", "", 0, std::nullopt}};
  run.summary = summary;
  const Headline h = headline_of(run);
  ASSERT_TRUE(h.geomean.per_workload());
  ASSERT_EQ(h.geomean.workloads.size(), 3u);
  EXPECT_EQ(h.geomean.workloads[0].workload, "mlp");
  EXPECT_EQ(h.geomean.workloads[0].value, "0.61x [0.60, 0.62]");
  EXPECT_EQ(h.geomean.workloads[0].detail, "0.61x [0.60, 0.62] against mlp/fp32/w0/a1/b64");
  EXPECT_EQ(h.geomean.workloads[1].value, "1.60x (no interval)");
  EXPECT_EQ(h.geomean.workloads[2].workload, "resnet50");
  EXPECT_EQ(h.geomean.workloads[2].value, "-");
  EXPECT_EQ(h.geomean.workloads[2].detail, "- (no scenario at the baseline's settings)");
}

}  // namespace
}  // namespace tb::report
