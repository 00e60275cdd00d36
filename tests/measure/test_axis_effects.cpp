#include <trainbench/measure/axis_effects.hpp>

#include <gtest/gtest.h>

#include <trainbench/measure/comparison.hpp>
#include "tests/helpers/synthetic_runs.hpp"

namespace {

using namespace tb;
using tb::testing::make_run;
using tb::testing::make_segmented_scenario;

// A scenario of a precision × workers grid; its step time is `ms` in every one of 6 rounds.
ScenarioResult cell(Precision precision, int workers, double ms, int batch = 64, std::uint64_t seed = 1) {
  auto s = make_segmented_scenario("resnet", precision, batch, std::vector<double>(6, ms / 1000), 10, 0.01, seed);
  s.params.workers = workers;
  s.id = scenario_id(s.params);
  return s;
}

// bf16 is 2x faster at w0 and 1.5x at w4; workers 4 are 3x faster at fp32 and 2.25x at bf16.
RunResult grid() {
  auto run = make_run("grid", {cell(Precision::fp32, 0, 30, 64, 1), cell(Precision::fp32, 4, 10, 64, 2),
                               cell(Precision::amp_bf16, 0, 15, 64, 3), cell(Precision::amp_bf16, 4, 6.6667, 64, 4)});
  annotate_run(run);
  return run;
}

const AxisEffect* effect_of(const std::vector<AxisEffect>& effects, const std::string& axis) {
  for (const auto& e : effects)
    if (e.axis == axis) return &e;
  return nullptr;
}

TEST(AxisEffects, AveragesEachSettingOverTheOthers) {
  const auto effects = axis_effects(grid());
  ASSERT_EQ(effects.size(), 2u);  // model is not a knob; batch and the rest take one value
  const AxisEffect* precision = effect_of(effects, "precision");
  ASSERT_NE(precision, nullptr);
  EXPECT_EQ(precision->value, "amp_bf16");
  EXPECT_EQ(precision->reference, "fp32");
  EXPECT_EQ(precision->pairs, 2);
  EXPECT_NEAR(precision->speedup.ratio, std::sqrt(2.0 * 1.5), 0.03);  // geometric mean of the pairs
  EXPECT_NEAR(precision->lowest, 1.5, 0.03);
  EXPECT_NEAR(precision->highest, 2.0, 0.03);
  EXPECT_TRUE(precision->speedup.valid);
  EXPECT_LT(precision->speedup.low, precision->speedup.ratio);
  EXPECT_GT(precision->speedup.high, precision->speedup.ratio);
  EXPECT_EQ(precision->verdict, "faster");

  const AxisEffect* workers = effect_of(effects, "workers");
  ASSERT_NE(workers, nullptr);
  EXPECT_EQ(workers->value, "4");
  EXPECT_EQ(workers->reference, "0");
  EXPECT_NEAR(workers->speedup.ratio, std::sqrt(3.0 * 2.25), 0.05);
}

TEST(AxisEffects, ComparesPerSampleWhenTheBatchDiffers) {
  // Batch 128 takes 1.5x the time of batch 64 per step: 4/3 faster per sample.
  auto run = make_run("batch", {cell(Precision::fp32, 0, 30, 64, 1), cell(Precision::fp32, 0, 45, 128, 2)});
  annotate_run(run);
  const auto effects = axis_effects(run);
  ASSERT_EQ(effects.size(), 1u);
  EXPECT_EQ(effects[0].axis, "batch");
  EXPECT_NEAR(effects[0].speedup.ratio, 4.0 / 3.0, 0.03);
}

TEST(AxisEffects, AccumulationPairsAtTheSameEffectiveBatch) {
  // hold_effective_batch: a4/b16 against a1/b64, both 64 samples per optimizer step.
  auto a4 = cell(Precision::fp32, 0, 40, 16, 2);
  a4.params.accumulation = 4;
  a4.params.effective_batch = 64;
  a4.id = scenario_id(a4.params);
  auto run = make_run("accumulation", {cell(Precision::fp32, 0, 30, 64, 1), a4});
  annotate_run(run);
  const auto effects = axis_effects(run);
  const AxisEffect* accumulation = effect_of(effects, "accumulation");
  ASSERT_NE(accumulation, nullptr);
  EXPECT_EQ(accumulation->value, "4");
  EXPECT_NEAR(accumulation->speedup.ratio, 0.75, 0.02);
  EXPECT_EQ(effect_of(effects, "batch"), nullptr);  // b16 differs from b64 in accumulation too
}

TEST(AxisEffects, ValuesWithoutAPairAndUnmeasuredScenariosAreLeftOut) {
  auto run = grid();
  // bf16/w0 fails: bf16 is then measured only at w4, against fp32/w4.
  run.scenarios[2].status = ScenarioStatus::failed;
  const auto effects = axis_effects(run);
  const AxisEffect* precision = effect_of(effects, "precision");
  ASSERT_NE(precision, nullptr);
  EXPECT_EQ(precision->pairs, 1);
  EXPECT_NEAR(precision->speedup.ratio, 1.5, 0.03);
  // Without an ok baseline there is no reference value.
  run.scenarios[0].status = ScenarioStatus::failed;
  EXPECT_TRUE(axis_effects(run).empty());
}

TEST(BestConfigurations, NamesTheFastestAndSaysWhetherItBeatsTheNext) {
  const auto best = best_configurations(grid());
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].workload, "");  // one workload: no label
  EXPECT_EQ(best[0].id, "resnet/amp_bf16/w4/a1/b64");
  EXPECT_EQ(best[0].reference_id, "resnet/fp32/w0/a1/b64");
  EXPECT_NEAR(best[0].vs_reference.ratio, 4.5, 0.1);
  EXPECT_EQ(best[0].runner_up_id, "resnet/fp32/w4/a1/b64");
  EXPECT_NEAR(best[0].vs_runner_up.ratio, 1.5, 0.05);
  EXPECT_EQ(best[0].verdict_vs_runner_up, "faster");
}

TEST(BestConfigurations, SkipsALossDriftAndGroupsByWorkload) {
  auto run = grid();
  auto other = cell(Precision::fp32, 0, 5, 64, 9);
  other.params.model = "transformer";
  other.id = scenario_id(other.params);
  run.scenarios.push_back(other);
  annotate_run(run);
  run.scenarios[3].loss_parity = LossParitySection{"x", 0.2, 0.05, false, 10};
  const auto best = best_configurations(run);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].workload, "resnet (cpu)");
  EXPECT_EQ(best[0].id, "resnet/fp32/w4/a1/b64");
  ASSERT_EQ(best[0].faster_but_drifted.size(), 1u);
  EXPECT_EQ(best[0].faster_but_drifted[0], "resnet/amp_bf16/w4/a1/b64");
  // The transformer is its own workload: never "6x faster than the ResNet".
  EXPECT_EQ(best[1].workload, "transformer (cpu)");
  EXPECT_EQ(best[1].id, "transformer/fp32/w0/a1/b64");
  EXPECT_EQ(best[1].runner_up_id, "");
  EXPECT_EQ(best[1].reference_id, "");
  // The speed effect still counts the drifted pair, and says so.
  const auto effects = axis_effects(run);  // kept: effect_of points into it
  const AxisEffect* precision = effect_of(effects, "precision");
  ASSERT_NE(precision, nullptr);
  EXPECT_EQ(precision->pairs, 2);
  EXPECT_EQ(precision->drifted_pairs, 1);
}

}  // namespace
