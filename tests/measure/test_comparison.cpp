#include <trainbench/measure/comparison.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <trainbench/support/error.hpp>
#include "tests/helpers/synthetic_runs.hpp"

namespace {

using namespace tb;
using tb::testing::jittered;
using tb::testing::loss_curve;
using tb::testing::make_run;
using tb::testing::make_scenario;

RunResult mixed_precision_run() {
  return make_run(
      "run-a",
      {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 1), loss_curve(50, 0.5)),
       make_scenario("mlp", Precision::tf32, 32, jittered(0.008, 0.01, 40, 2), loss_curve(45, 0.5)),
       // Same speed, but its loss plateaus 20% higher: reduced precision hurt training.
       make_scenario("mlp", Precision::amp_bf16, 32, jittered(0.010, 0.01, 40, 3), loss_curve(50, 0.6)),
       tb::testing::failed_scenario("mlp", Precision::amp_fp16, 32, ScenarioStatus::skipped, "amp_fp16 needs a GPU")});
}

TEST(AnnotateRun, ComparesEveryOkScenarioWithTheBaseline) {
  auto run = mixed_precision_run();
  annotate_run(run);
  const auto& base = run.scenarios[0].comparison.value();
  EXPECT_EQ(base.verdict, "baseline");
  EXPECT_EQ(base.baseline_id, "mlp/fp32/w0/a1/b32");
  EXPECT_DOUBLE_EQ(base.speedup, 1.0);

  const auto& tf32 = run.scenarios[1].comparison.value();
  EXPECT_EQ(tf32.verdict, "faster");
  EXPECT_NEAR(tf32.speedup, 1.25, 0.02);
  EXPECT_LE(tf32.ci_low, tf32.speedup);
  EXPECT_GE(tf32.ci_high, tf32.speedup);

  EXPECT_EQ(run.scenarios[2].comparison.value().verdict, "same");
  EXPECT_FALSE(run.scenarios[3].comparison.has_value());  // skipped
}

TEST(AnnotateRun, LossParityFlagsADriftedCurve) {
  auto run = mixed_precision_run();
  annotate_run(run);
  EXPECT_FALSE(run.scenarios[0].loss_parity.has_value());  // fp32 is the reference
  const auto& tf32 = run.scenarios[1].loss_parity.value();
  EXPECT_EQ(tf32.reference_id, "mlp/fp32/w0/a1/b32");
  EXPECT_TRUE(tf32.ok);
  EXPECT_EQ(tf32.steps_compared, 45);  // common prefix of 45 and 50 steps
  EXPECT_NEAR(tf32.rel_drift, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(tf32.tolerance, 0.05);

  const auto& bf16 = run.scenarios[2].loss_parity.value();
  EXPECT_FALSE(bf16.ok);
  EXPECT_GT(bf16.rel_drift, 0.1);

  AnnotateOptions loose;
  loose.loss_tolerance = 0.5;
  auto again = mixed_precision_run();
  annotate_run(again, loose);
  EXPECT_TRUE(again.scenarios[2].loss_parity.value().ok);
}

// A small model that memorized its data ends near zero: 0.0088 against 0.008 is 10% of a loss
// that is almost nothing, and no drift once measured against 5% of the starting loss (2.0);
// the same 10% at a loss still far from zero is flagged.
TEST(AnnotateRun, LossParityIgnoresTenPercentOfANearlyZeroLoss) {
  auto run = mixed_precision_run();
  run.scenarios[0].loss_curve = loss_curve(50, 0.008);
  run.scenarios[2].loss_curve = loss_curve(50, 0.0088);
  annotate_run(run);
  const auto& memorized = run.scenarios[2].loss_parity.value();
  EXPECT_TRUE(memorized.ok) << memorized.rel_drift;
  EXPECT_LT(memorized.rel_drift, 0.01);

  auto far = mixed_precision_run();
  far.scenarios[0].loss_curve = loss_curve(50, 0.8);
  far.scenarios[2].loss_curve = loss_curve(50, 0.88);
  annotate_run(far);
  EXPECT_FALSE(far.scenarios[2].loss_parity.value().ok);
}

TEST(AnnotateRun, NonFiniteLossIsNeverOk) {
  auto run = mixed_precision_run();
  run.scenarios[1].loss_curve.back() = std::nan("");
  annotate_run(run);
  EXPECT_FALSE(run.scenarios[1].loss_parity.value().ok);
  // A finite number, which JSON can hold.
  EXPECT_TRUE(std::isfinite(run.scenarios[1].loss_parity->rel_drift));
}

TEST(AnnotateRun, SummaryCountsAndGeomean) {
  auto run = mixed_precision_run();
  run.scenarios.push_back(
      tb::testing::failed_scenario("cnn", Precision::fp32, 8, ScenarioStatus::oom, "out of memory"));
  annotate_run(run);
  const auto& s = run.summary.value();
  EXPECT_EQ(s.count(ScenarioStatus::ok), 3);
  EXPECT_EQ(s.count(ScenarioStatus::skipped), 1);
  EXPECT_EQ(s.count(ScenarioStatus::oom), 1);
  EXPECT_EQ(s.count(ScenarioStatus::failed), 0);
  EXPECT_EQ(s.compared, 2);
  // Geomean of ~1.25 and ~1.0.
  ASSERT_TRUE(s.geomean.has_value());
  EXPECT_NEAR(s.geomean->speedup, std::sqrt(1.25), 0.02);
  EXPECT_LT(s.geomean->ci_low, s.geomean->speedup);
  EXPECT_GT(s.geomean->ci_high, s.geomean->speedup);
  // In the file every status has its counter, even at 0.
  const nlohmann::json j = s;
  EXPECT_EQ(j.at("crashed"), 0);
  EXPECT_EQ(j.at("interrupted"), 0);
}

TEST(AnnotateRun, DifferentBatchSizesCompareByThroughput) {
  auto run = make_run("run-b", {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 1)),
                                make_scenario("mlp", Precision::fp32, 64, jittered(0.016, 0.01, 40, 2))});
  annotate_run(run);
  // 32 samples per 10 ms vs 64 samples per 16 ms: 1.25x the throughput.
  EXPECT_NEAR(run.scenarios[1].comparison.value().speedup, 1.25, 0.02);
}

TEST(AnnotateRun, BaselineOverrideAndMissingBaseline) {
  auto run = mixed_precision_run();
  AnnotateOptions o;
  o.baseline_id = "mlp/tf32/w0/a1/b32";
  annotate_run(run, o);
  EXPECT_EQ(run.scenarios[1].comparison.value().verdict, "baseline");
  EXPECT_EQ(run.scenarios[0].comparison.value().verdict, "slower");

  auto none = mixed_precision_run();
  none.baseline_id = "no/such/scenario";
  annotate_run(none);
  EXPECT_FALSE(none.scenarios[1].comparison.has_value());
  EXPECT_FALSE(none.summary.has_value());
  EXPECT_TRUE(none.scenarios[2].loss_parity.has_value());  // needs no baseline

  auto alone = make_run("alone", {make_scenario("mlp", Precision::fp32, 32, jittered(0.01, 0.01, 20, 1))});
  annotate_run(alone);
  EXPECT_EQ(alone.summary.value().compared, 0);
  EXPECT_DOUBLE_EQ(alone.summary.value().geomean.value().speedup, 1.0);
}

// Several workloads (issue 26): each against its own scenario at the baseline's settings, never
// GPT-2 against ResNet-50 (0.08x), with a geomean each.
TEST(AnnotateRun, SpeedupsAndGeomeansAreWithinEachWorkload) {
  auto run = tb::testing::three_workload_run();
  ASSERT_EQ(run.baseline_id, "resnet50/fp32/w0/a1/b8");
  annotate_run(run);
  struct Expected {
    const char* id;
    const char* against;
    double speedup;
  };
  const Expected expected[] = {
      {"resnet50/fp32/w0/a1/b8", "resnet50/fp32/w0/a1/b8", 1.0},
      {"resnet50/amp_bf16/w0/a1/b8", "resnet50/fp32/w0/a1/b8", 1.25},
      {"resnet50/fp32/w0/a1/b32", "resnet50/fp32/w0/a1/b8", 1.6},
      {"vit_b_16/fp32/w0/a1/b8", "vit_b_16/fp32/w0/a1/b8", 1.0},
      {"vit_b_16/amp_bf16/w0/a1/b8", "vit_b_16/fp32/w0/a1/b8", 2.5},
      {"vit_b_16/amp_bf16/w0/a1/b32", "vit_b_16/fp32/w0/a1/b8", 2.5 * 1.2},
      {"gpt2/fp32/w0/a1/b8", "gpt2/fp32/w0/a1/b8", 1.0},
      {"gpt2/amp_bf16/w0/a1/b8", "gpt2/fp32/w0/a1/b8", 4.0},
  };
  for (const auto& e : expected) {
    const ScenarioResult* s = find_scenario(run, e.id);
    ASSERT_NE(s, nullptr) << e.id;
    ASSERT_TRUE(s->comparison.has_value()) << e.id;
    EXPECT_EQ(s->comparison->baseline_id, e.against) << e.id;
    EXPECT_NEAR(s->comparison->speedup, e.speedup, 0.03 * e.speedup) << e.id;
    EXPECT_EQ(s->comparison->verdict, std::string(e.id) == e.against ? "baseline" : "faster") << e.id;
  }
  const auto& summary = run.summary.value();
  ASSERT_EQ(summary.workloads.size(), 3u);
  const double geomeans[] = {std::cbrt(1.25 * 1.6 * 2.0), std::cbrt(2.5 * 1.2 * 3.0), 4.0};
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& w = summary.workloads[k];
    EXPECT_EQ(w.workload, run_workloads(run)[k]);
    EXPECT_EQ(w.compared, k == 2 ? 1 : 3);
    ASSERT_TRUE(w.geomean.has_value()) << w.workload;
    EXPECT_NEAR(w.geomean->speedup, geomeans[k], 0.03 * geomeans[k]) << w.workload;
  }
  EXPECT_EQ(run_workloads(run), (std::vector<std::string>{"resnet50", "vit_b_16", "gpt2"}));
  // The run's own geomean is its baseline's workload's; compared counts every workload.
  EXPECT_DOUBLE_EQ(summary.geomean.value().speedup, summary.workloads[0].geomean->speedup);
  EXPECT_EQ(summary.compared, 7);
  // A single-workload run has no per-workload entries and reads as before.
  auto one = mixed_precision_run();
  annotate_run(one);
  EXPECT_TRUE(one.summary.value().workloads.empty());
}

TEST(AnnotateRun, AWorkloadWithoutItsBaselineGetsNoSpeedups) {
  auto run = tb::testing::three_workload_run();
  for (auto& s : run.scenarios)
    if (s.id == "gpt2/fp32/w0/a1/b8") s.status = ScenarioStatus::oom;
  annotate_run(run);
  EXPECT_EQ(workload_baseline(run, "gpt2"), nullptr);
  EXPECT_FALSE(find_scenario(run, "gpt2/amp_bf16/w0/a1/b8")->comparison.has_value());
  const auto& gpt2 = run.summary.value().workloads.at(2);
  EXPECT_EQ(gpt2.workload, "gpt2");
  EXPECT_EQ(gpt2.baseline_id, "");
  EXPECT_FALSE(gpt2.geomean.has_value());
  EXPECT_EQ(find_scenario(run, "vit_b_16/amp_bf16/w0/a1/b8")->comparison->baseline_id, "vit_b_16/fp32/w0/a1/b8");
}

// Results written before speed-ups were per workload are recognised, and compared anew.
TEST(AnnotateRun, ComparisonsAcrossWorkloadsAreRecognisedAndRedone) {
  auto run = tb::testing::three_workload_run();
  annotate_run(run);
  EXPECT_FALSE(compared_across_workloads(run));
  auto stale = run;
  auto& gpt2 = stale.scenarios.back();
  gpt2.comparison->baseline_id = stale.baseline_id;
  gpt2.comparison->speedup = 0.08;
  EXPECT_TRUE(compared_across_workloads(stale));
  compare_within_workloads(stale);
  EXPECT_FALSE(compared_across_workloads(stale));
  EXPECT_EQ(gpt2.comparison->baseline_id, "gpt2/fp32/w0/a1/b8");
  EXPECT_DOUBLE_EQ(gpt2.comparison->speedup, run.scenarios.back().comparison->speedup);
}

TEST(StepTimeSpeedup, FallsBackToDistributionsWithoutSamples) {
  auto a = make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 1));
  auto b = make_scenario("mlp", Precision::fp32, 32, jittered(0.005, 0.01, 40, 2));
  a.step_times_s.clear();
  b.step_times_s.clear();
  const auto r = step_time_speedup(a, b);
  EXPECT_NEAR(r.ratio, 2.0, 0.05);
  EXPECT_LE(r.low, r.ratio);
  EXPECT_GE(r.high, r.ratio);
}

TEST(CompareRuns, MatchesByKeyAndListsUnmatched) {
  const auto old_run = make_run("old", {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 1)),
                                        make_scenario("mlp", Precision::fp32, 64, jittered(0.020, 0.01, 40, 2)),
                                        make_scenario("cnn", Precision::fp32, 32, jittered(0.030, 0.01, 40, 3))});
  const auto new_run = make_run("new", {make_scenario("mlp", Precision::fp32, 64, jittered(0.022, 0.01, 40, 4)),
                                        make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 5)),
                                        make_scenario("gpt", Precision::fp32, 8, jittered(0.050, 0.01, 40, 6))});
  const auto c = compare_runs(old_run, new_run);
  ASSERT_EQ(c.scenarios.size(), 2u);
  EXPECT_EQ(c.scenarios[0].id, "mlp/fp32/w0/a1/b64");  // the new run's order
  EXPECT_EQ(c.scenarios[0].verdict, stats::Verdict::slower);
  EXPECT_NEAR(c.scenarios[0].change_pct, 10.0, 1.0);
  EXPECT_EQ(c.scenarios[1].verdict, stats::Verdict::same);
  EXPECT_EQ(c.only_in_old, std::vector<std::string>{"cnn/fp32/w0/a1/b32"});
  EXPECT_EQ(c.only_in_new, std::vector<std::string>{"gpt/fp32/w0/a1/b8"});
  EXPECT_FALSE(c.regression);  // no gate requested
  ASSERT_TRUE(c.geomean_speedup.has_value());
  const auto j = nlohmann::json(c);
  EXPECT_EQ(j.at("scenarios").size(), 2u);
  EXPECT_EQ(j.at("scenarios")[0].at("verdict"), "slower");
}

// Two runs of several workloads: a geomean per workload, none over all of them.
TEST(CompareRuns, GeomeanPerWorkload) {
  const auto old_run = tb::testing::three_workload_run("old");
  const auto new_run = tb::testing::three_workload_run("new", 1.25);  // gpt2 only: 25% slower
  const auto c = compare_runs(old_run, new_run);
  EXPECT_EQ(c.compared, 10);
  EXPECT_FALSE(c.geomean_speedup.has_value());
  ASSERT_EQ(c.workloads.size(), 3u);
  EXPECT_EQ(c.workloads[0].workload, "resnet50");
  EXPECT_EQ(c.workloads[0].compared, 4);
  EXPECT_NEAR(c.workloads[0].geomean_speedup.ratio, 1.0, 0.03);
  EXPECT_EQ(c.workloads[2].workload, "gpt2");
  EXPECT_NEAR(c.workloads[2].geomean_speedup.ratio, 1 / 1.25, 0.03);
  for (const auto& s : c.scenarios) EXPECT_EQ(s.workload, s.id.substr(0, s.id.find('/')));
  const nlohmann::json j = c;
  EXPECT_FALSE(j.contains("geomean_speedup"));
  EXPECT_EQ(j["workloads"][2]["workload"], "gpt2");
  // One workload: one geomean, as before.
  const auto one = compare_runs(mixed_precision_run(), mixed_precision_run());
  EXPECT_TRUE(one.geomean_speedup.has_value());
  EXPECT_TRUE(one.workloads.empty());
}

TEST(CompareRuns, NonOkScenariosAreMatchedButNotCompared) {
  const auto old_run = make_run("old", {make_scenario("mlp", Precision::fp32, 32, jittered(0.01, 0.01, 20, 1))});
  const auto new_run =
      make_run("new", {tb::testing::failed_scenario("mlp", Precision::fp32, 32, ScenarioStatus::failed, "boom")});
  CompareOptions o;
  o.fail_on_regression_pct = 5;
  const auto c = compare_runs(old_run, new_run, o);
  ASSERT_EQ(c.scenarios.size(), 1u);
  EXPECT_FALSE(c.scenarios[0].compared);
  EXPECT_EQ(c.scenarios[0].new_status, ScenarioStatus::failed);
  EXPECT_FALSE(c.geomean_speedup.has_value());
}

TEST(CompareRuns, RefusesDifferentHardwareUnlessAllowed) {
  const auto old_run = make_run("old", {make_scenario("mlp", Precision::fp32, 32, jittered(0.01, 0.01, 20, 1))});
  const auto new_run =
      make_run("new", {make_scenario("mlp", Precision::fp32, 32, jittered(0.01, 0.01, 20, 2))}, "Other CPU 1");
  try {
    compare_runs(old_run, new_run);
    FAIL() << "expected EnvironmentMismatch";
  } catch (const EnvironmentMismatch& e) {
    ASSERT_EQ(e.differences().size(), 1u);
    EXPECT_EQ(e.differences()[0], "cpu.model: 'Test CPU 9000' vs 'Other CPU 1'");
    EXPECT_NE(std::string(e.what()).find("--allow-env-mismatch"), std::string::npos);
  }
  CompareOptions o;
  o.allow_env_mismatch = true;
  const auto c = compare_runs(old_run, new_run, o);
  EXPECT_EQ(c.environment_differences.size(), 1u);
  EXPECT_EQ(c.scenarios.size(), 1u);
}

TEST(EnvironmentDifferences, GpuShapesAndMissingKeys) {
  const nlohmann::json array_form = {{"device", "cuda"}, {"gpu", {{{"index", 0}, {"name", "NVIDIA H200"}}}}};
  const nlohmann::json object_form = {{"device", "cuda"}, {"gpu", {{"name", "NVIDIA H200"}, {"count", 1}}}};
  EXPECT_TRUE(environment_differences(array_form, object_form).empty());
  const nlohmann::json two = {{"device", "cuda"}, {"gpu", {{"name", "NVIDIA H200"}, {"count", 2}}}};
  const auto d = environment_differences(object_form, two);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "gpu: [NVIDIA H200] vs [NVIDIA H200, NVIDIA H200]");
  EXPECT_TRUE(environment_differences(nlohmann::json::object(), nlohmann::json::object()).empty());
  EXPECT_EQ(environment_differences(nlohmann::json::object(), {{"device", "cpu"}}).size(), 1u);
}

TEST(RegressionGate, PlantedSlowdownBeyondNoiseFails) {
  const auto old_run = make_run("old", {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 1))});
  const auto new_run = make_run("new", {make_scenario("mlp", Precision::fp32, 32, jittered(0.011, 0.01, 40, 2))});
  CompareOptions o;
  o.fail_on_regression_pct = 5;
  auto c = compare_runs(old_run, new_run, o);
  EXPECT_TRUE(c.regression);
  EXPECT_TRUE(c.scenarios[0].regression);
  EXPECT_DOUBLE_EQ(c.scenarios[0].gate_pct, 5.0);

  o.fail_on_regression_pct = 15;  // a 10% slowdown is within a 15% budget
  EXPECT_FALSE(compare_runs(old_run, new_run, o).regression);

  o.fail_on_regression_pct = 5;  // an A/A floor of 12% means 10% is within noise
  o.noise.entries.push_back({"mlp/fp32/w0/a1/b32", scenario_key(new_run.scenarios[0].params), 12.0, 3.0});
  c = compare_runs(old_run, new_run, o);
  EXPECT_FALSE(c.regression);
  EXPECT_DOUBLE_EQ(c.scenarios[0].gate_pct, 12.0);
}

// The new run's matrix gates (params.gates): its own step-time threshold replaces the command
// line's, peak memory and loss fail past theirs, each with the figures it was judged on.
TEST(RegressionGate, MatrixGatesPerScenarioAndMetric) {
  auto old_mlp = make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 1), loss_curve(30, 0.5));
  auto new_mlp = make_scenario("mlp", Precision::fp32, 32, jittered(0.011, 0.01, 40, 2), loss_curve(30, 0.5));
  auto old_cnn = make_scenario("cnn", Precision::fp32, 32, jittered(0.030, 0.01, 40, 3), loss_curve(30, 0.5));
  auto new_cnn = make_scenario("cnn", Precision::fp32, 32, jittered(0.030, 0.01, 40, 4), loss_curve(30, 0.6));
  old_mlp.memory.peak_rss_bytes = old_cnn.memory.peak_rss_bytes = 100 << 20;
  new_mlp.memory.peak_rss_bytes = 104 << 20;  // +4%
  new_cnn.memory.peak_rss_bytes = 130 << 20;  // +30%
  new_mlp.params.gates.step_time_pct = 15;    // the +10% of mlp is within its own 15%
  new_cnn.params.gates.peak_memory_pct = 20;
  new_cnn.params.gates.loss_drift = 0.05;  // the loss ends 20% higher
  const auto old_run = make_run("old", {old_mlp, old_cnn});
  const auto new_run = make_run("new", {new_mlp, new_cnn});
  CompareOptions o;
  o.fail_on_regression_pct = 5;
  const auto c = compare_runs(old_run, new_run, o);
  const ScenarioComparison& mlp = c.scenarios[0];
  const ScenarioComparison& cnn = c.scenarios[1];
  EXPECT_DOUBLE_EQ(mlp.gate_pct, 15.0);
  EXPECT_FALSE(mlp.gate_failed());
  EXPECT_FALSE(mlp.memory_gate_pct.has_value()) << "no memory gate set for mlp";
  EXPECT_DOUBLE_EQ(cnn.gate_pct, 5.0);
  EXPECT_FALSE(cnn.regression) << "not slower";
  EXPECT_TRUE(cnn.memory_regression);
  EXPECT_NEAR(cnn.new_peak_bytes / cnn.old_peak_bytes, 1.3, 1e-9);
  EXPECT_TRUE(cnn.loss_regression);
  EXPECT_NEAR(cnn.loss_drift, 0.2, 0.05);
  EXPECT_TRUE(c.regression) << "the run fails its gate";
  // Without a gate nothing is judged.
  const auto ungated = compare_runs(old_run, new_run, CompareOptions{});
  EXPECT_FALSE(ungated.scenarios[1].memory_regression);
  EXPECT_FALSE(ungated.regression);
}

// The two sides of an A/B session (`trainbench ab`): each round's drift (here +-25%) hits OLD and
// NEW alike. Paired by round, a 10% slowdown stands out and an A/A pair is "same"; the same
// numbers compared as two independent runs drown in the drift.
TEST(CompareRuns, AbSessionSidesArePairedByRound) {
  const std::vector<double> drift = {1.00, 1.25, 0.80, 1.10, 0.90, 1.20, 0.85, 1.05};
  auto medians = [&](double base) {
    std::vector<double> m;
    for (double d : drift) m.push_back(base * d);
    return m;
  };
  auto side = [&](const std::string& id, const std::string& which, double base, std::uint64_t seed) {
    RunResult r =
        make_run(id, {tb::testing::make_segmented_scenario("mlp", Precision::fp32, 32, medians(base), 10, 0.01, seed)});
    r.provenance.ab_session = tb::AbSessionProvenance{"ab-1", which, std::nullopt};
    return r;
  };
  CompareOptions o;
  o.fail_on_regression_pct = 5;
  const RunResult old_run = side("ab-1-old", "old", 0.010, 1);

  const auto slow = compare_runs(old_run, side("ab-1-new", "new", 0.011, 50), o);
  EXPECT_TRUE(slow.paired);
  EXPECT_EQ(slow.ab_session, "ab-1");
  EXPECT_TRUE(slow.scenarios[0].regression);
  EXPECT_NEAR(slow.scenarios[0].change_pct, 10.0, 1.5);

  const auto same = compare_runs(old_run, side("ab-1-new", "new", 0.010, 50), o);
  EXPECT_FALSE(same.regression);
  EXPECT_EQ(same.scenarios[0].verdict, stats::Verdict::same);

  // Not one session (different ids, or both "old"): unpaired, and the drift swamps the 10%.
  RunResult other = side("ab-2-new", "new", 0.011, 50);
  other.provenance.ab_session->id = "ab-2";
  const auto unpaired = compare_runs(old_run, other, o);
  EXPECT_FALSE(unpaired.paired);
  EXPECT_FALSE(unpaired.regression);
  EXPECT_EQ(unpaired.scenarios[0].verdict, stats::Verdict::noisy);
  RunResult both_old = side("ab-1-new", "old", 0.011, 50);
  EXPECT_EQ(ab_session_of(old_run, both_old), "");
  EXPECT_EQ(nlohmann::json(slow).at("paired"), true);
}

TEST(RegressionGate, NoisySlowdownDoesNotFail) {
  // Medians 10% apart but 30% noise on 6 samples: the interval reaches past 1.
  const auto old_run = make_run("old", {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.3, 6, 1))});
  const auto new_run = make_run("new", {make_scenario("mlp", Precision::fp32, 32, jittered(0.011, 0.3, 6, 2))});
  CompareOptions o;
  o.fail_on_regression_pct = 5;
  const auto c = compare_runs(old_run, new_run, o);
  EXPECT_EQ(c.scenarios[0].verdict, stats::Verdict::noisy);
  EXPECT_FALSE(c.regression);
}

TEST(NoiseFloor, RoundTripAndBadFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "tb_test_noise_floor";
  std::filesystem::remove_all(dir);
  const auto a = make_run("a", {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.02, 30, 1))});
  const auto b = make_run("b", {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.02, 30, 2))});
  const auto floor = make_noise_floor(compare_runs(a, b));
  ASSERT_EQ(floor.entries.size(), 1u);
  EXPECT_LT(floor.entries[0].abs_change_pct, 2.0);
  EXPECT_GT(floor.entries[0].interval_width_pct, 0.0);
  const std::string path = (dir / "noise.json").string();
  save_noise_floor(floor, path);
  const auto loaded = load_noise_floor(path);
  ASSERT_EQ(loaded.entries.size(), 1u);
  EXPECT_EQ(loaded.entries[0].id, "mlp/fp32/w0/a1/b32");
  EXPECT_DOUBLE_EQ(loaded.entries[0].abs_change_pct, floor.entries[0].abs_change_pct);
  EXPECT_NE(loaded.find(scenario_key(a.scenarios[0].params)), nullptr);

  std::ofstream(dir / "bad.json") << R"({"kind": "trainbench-noise-floor", "scenarios": [{"key": {}}]})";
  try {
    load_noise_floor((dir / "bad.json").string());
    FAIL() << "expected InputError";
  } catch (const InputError& e) { EXPECT_EQ(e.field(), "scenarios[0].abs_change_pct"); }
  std::ofstream(dir / "other.json") << "{}";
  EXPECT_THROW(load_noise_floor((dir / "other.json").string()), InputError);
  EXPECT_THROW(load_noise_floor((dir / "missing.json").string()), InputError);
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// The sections annotate_run writes must satisfy schema/results.schema.json.
TEST(AnnotateRun, AnnotatedResultsMatchTheSchema) {
  if (std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 with the jsonschema module is not available";
  const auto path = std::filesystem::temp_directory_path() / "tb_test_annotated_results.json";
  for (auto run : {mixed_precision_run(), tb::testing::three_workload_run()}) {  // one workload, several
    annotate_run(run);
    save_results(run, path.string());
    const std::string cmd = std::string("python3 ") + TB_SOURCE_DIR + "/scripts/validate_results.py " + TB_SOURCE_DIR +
                            "/schema/results.schema.json " + path.string();
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  std::filesystem::remove(path);
}

}  // namespace
