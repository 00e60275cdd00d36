// The run's scaling analysis (measure/scaling.hpp) on hand-built runs: series grouping for weak
// and strong scaling, efficiency against world size 1, DDP's own overhead, a missing reference,
// and the projection's calibration and checks against the measured sizes.
#include <gtest/gtest.h>

#include <trainbench/capacity/scaling_projection.hpp>
#include <trainbench/measure/comparison.hpp>
#include <trainbench/measure/scaling.hpp>

namespace tb {
namespace {

struct Shape {
  int world_size = 1;
  int per_rank_batch = 32;
  double median_step_s = 0.1;
  std::string scaling = "weak";
  bool reducer_alone = false;
};

// A measured scenario; a data-parallel one (world size > 1 or through the reducer) carries the
// section the runtime fills: 100 MB of gradient, 0.02 s exposed and 0.03 s hidden, a 0.1 s
// all-reduce at 1 GB/s bus bandwidth, 1e-4 s latency, two ranks' compute.
ScenarioResult scenario(const Shape& shape) {
  ScenarioResult s;
  s.params.model = "mlp";
  s.params.batch = shape.per_rank_batch;
  s.params.effective_batch = shape.per_rank_batch;
  s.params.world_size = shape.world_size;
  s.params.scaling = *parse_choice<ScalingMode>(shape.scaling);
  s.params.reducer = shape.reducer_alone ? ReducerMode::always : ReducerMode::automatic;
  s.id = scenario_id(s.params);
  s.step_times_s = {shape.median_step_s, shape.median_step_s, shape.median_step_s};
  s.step_time_s.median = shape.median_step_s;
  s.measured_steps = 3;
  s.samples_per_s = static_cast<double>(global_batch(s.params)) / shape.median_step_s;
  if (shape.world_size > 1 || shape.reducer_alone) {
    DataParallelSection dp;
    dp.backend = "gloo";
    dp.world_size = shape.world_size;
    dp.scaling = shape.scaling;
    dp.global_batch = global_batch(s.params);
    dp.gradient_bytes = 100'000'000;
    dp.exposed_comm_s = 0.02;
    dp.overlapped_comm_s = 0.03;
    dp.allreduce_s = 0.1;
    dp.algbw_bytes_per_s = capacity::algbw(1e8, 0.1);
    dp.busbw_bytes_per_s = capacity::busbw_from_algbw(dp.algbw_bytes_per_s, std::max(2, shape.world_size));
    dp.latency_s = 1e-4;
    for (int r = 0; r < shape.world_size; ++r)
      dp.ranks.push_back({r, "host-a", shape.median_step_s, shape.per_rank_batch / shape.median_step_s,
                          shape.median_step_s - 0.02 + 0.001 * r, 0.02});
    s.data_parallel = dp;
  }
  return s;
}

RunResult run_of(std::vector<ScenarioResult> scenarios) {
  RunResult run;
  run.run_id = "r";
  run.scenarios = std::move(scenarios);
  return run;
}

TEST(Scaling, WeakEfficiencyAgainstWorldSizeOne) {
  // 320 samples/s alone; 2 ranks 512/s (0.8); 4 ranks 800/s (0.625).
  RunResult run = run_of({scenario({1, 32, 0.1}), scenario({2, 32, 0.125}), scenario({4, 32, 0.16})});
  annotate_scaling(run);
  ASSERT_TRUE(run.scaling);
  ASSERT_EQ(run.scaling->series.size(), 1u);
  const auto& series = run.scaling->series[0];
  EXPECT_EQ(series.label, "mlp/fp32/w0/a1/b32");
  EXPECT_EQ(series.scaling, "weak");
  EXPECT_EQ(series.reference_id, "mlp/fp32/w0/a1/b32");
  EXPECT_DOUBLE_EQ(series.reference_samples_per_s, 320);
  ASSERT_EQ(series.members.size(), 3u);
  EXPECT_DOUBLE_EQ(*series.members[1].efficiency, 0.8);
  EXPECT_DOUBLE_EQ(series.members[1].per_rank_samples_per_s, 256);
  EXPECT_DOUBLE_EQ(*run.scenarios[1].data_parallel->efficiency, 0.8);
  EXPECT_EQ(run.scenarios[1].data_parallel->efficiency_reference_id, "mlp/fp32/w0/a1/b32");
  EXPECT_DOUBLE_EQ(*run.scenarios[2].data_parallel->efficiency, 0.625);
  EXPECT_TRUE(series.note.empty());
}

TEST(Scaling, StrongSeriesGroupByGlobalBatch) {
  // Global 64: 1 x 64 and 2 x 32. Global 128: 1 x 128 and 2 x 64. A weak 2 x 32 stays apart.
  RunResult run =
      run_of({scenario({1, 64, 0.2, "strong"}), scenario({2, 32, 0.125, "strong"}), scenario({1, 128, 0.4, "strong"}),
              scenario({2, 64, 0.2, "strong"}), scenario({2, 32, 0.125, "weak"})});
  annotate_scaling(run);
  ASSERT_EQ(run.scaling->series.size(), 3u);
  const auto& g64 = run.scaling->series[0];
  EXPECT_EQ(g64.label, "mlp/fp32/w0/a1/strong (global batch 64)");
  EXPECT_EQ(g64.global_batch, 64);
  EXPECT_EQ(g64.reference_id, run.scenarios[0].id);
  EXPECT_DOUBLE_EQ(*run.scenarios[1].data_parallel->efficiency, (64 / 0.125) / (2 * 64 / 0.2));  // 0.8
  const auto& g128 = run.scaling->series[1];
  EXPECT_EQ(g128.reference_id, run.scenarios[2].id);
  EXPECT_DOUBLE_EQ(*run.scenarios[3].data_parallel->efficiency, 1.0);  // 640/s vs 2 x 320/s
  // The weak 2-rank scenario has no world size 1 of its own in this run.
  EXPECT_EQ(run.scaling->series[2].label, "mlp/fp32/w0/a1/b32");
  EXPECT_FALSE(run.scenarios[4].data_parallel->efficiency);
}

TEST(Scaling, MissingReferenceLeavesEfficiencyOutAndSaysWhy) {
  ScenarioResult alone = scenario({1, 32, 0.1});
  alone.status = ScenarioStatus::failed;
  RunResult run = run_of({alone, scenario({2, 32, 0.125})});
  annotate_scaling(run);
  const auto& series = run.scaling->series.at(0);
  EXPECT_TRUE(series.reference_id.empty());
  EXPECT_FALSE(run.scenarios[1].data_parallel->efficiency);
  EXPECT_TRUE(run.scenarios[1].data_parallel->efficiency_reference_id.empty());
  EXPECT_NE(series.note.find("no world size 1"), std::string::npos);
  ASSERT_EQ(series.members.size(), 1u);  // a failed scenario is not a measured point
  // The projection still stands, against the model's own world size 1.
  ASSERT_TRUE(series.model);
  EXPECT_NE(series.model->efficiency_reference.find("model's own"), std::string::npos);
}

TEST(Scaling, DdpOverheadFromWorldSizeOneThroughTheReducer) {
  RunResult run = run_of({scenario({1, 32, 0.1}), scenario({1, 32, 0.11, "weak", true}), scenario({2, 32, 0.125})});
  annotate_scaling(run);
  const auto& series = run.scaling->series.at(0);
  EXPECT_EQ(series.reducer_alone_id, "mlp/fp32/w0/a1/b32/reducer-always");
  ASSERT_TRUE(series.ddp_overhead);
  EXPECT_NEAR(*series.ddp_overhead, 1 - 0.1 / 0.11, 1e-12);
  // Through the reducer alone it runs at 1 - overhead of the reference.
  EXPECT_NEAR(*run.scenarios[1].data_parallel->efficiency, 0.1 / 0.11, 1e-12);
  ASSERT_EQ(series.members.size(), 3u);
  EXPECT_FALSE(series.members[0].reducer_alone);
  EXPECT_TRUE(series.members[1].reducer_alone);
}

TEST(Scaling, ModelCalibratesOnTheLargestMeasuredSizeAndChecksEveryOne) {
  RunResult run = run_of({scenario({1, 32, 0.1}), scenario({2, 32, 0.125}), scenario({4, 32, 0.16})});
  annotate_scaling(run);
  const auto& model = *run.scaling->series.at(0).model;
  EXPECT_EQ(model.label, "projected (model)");
  EXPECT_EQ(model.calibrated_on, run.scenarios[2].id);
  EXPECT_EQ(model.topology, "gloo over loopback, one node (4 ranks)");
  const auto& m = model.parameters;
  EXPECT_EQ(m.calibrated_world_size, 4);
  EXPECT_EQ(m.calibrated_global_batch, 128);
  EXPECT_NEAR(m.compute_s, 0.16 - 0.02 + 0.003, 1e-12);  // the slowest of the four ranks
  EXPECT_DOUBLE_EQ(m.comm.alpha_s, 1e-4 / 6);
  EXPECT_DOUBLE_EQ(m.comm.busbw_bytes_per_s, 1.5e9);
  EXPECT_DOUBLE_EQ(m.overlap_s, 0.03);
  EXPECT_FALSE(model.overlap_lower_bound);
  EXPECT_FALSE(model.limits.empty());

  std::vector<int> sizes;
  for (const auto& p : model.points) sizes.push_back(p.world_size);
  EXPECT_EQ(sizes, (std::vector<int>{1, 2, 4, 8, 64, 512}));
  const auto at8 = capacity::project_step(m, 8);
  EXPECT_DOUBLE_EQ(model.points[3].step_s, at8->step_s);
  EXPECT_DOUBLE_EQ(*model.points[3].efficiency, at8->samples_per_s / (8 * 320.0));

  ASSERT_EQ(model.checks.size(), 2u);
  EXPECT_EQ(model.checks[0].world_size, 2);
  EXPECT_FALSE(model.checks[0].calibration_point);
  const double projected2 = capacity::project_step(m, 2)->step_s;
  EXPECT_DOUBLE_EQ(model.checks[0].projected_step_s, projected2);
  EXPECT_DOUBLE_EQ(model.checks[0].relative_error, projected2 / 0.125 - 1);
  EXPECT_TRUE(model.checks[1].calibration_point);
  EXPECT_NE(model.checks[1].note.find("calibrated at this point"), std::string::npos);
}

TEST(Scaling, OverlapIsALowerBoundWhenNothingWasExposed) {
  ScenarioResult two = scenario({2, 32, 0.125});
  two.data_parallel->exposed_comm_s = 0;
  RunResult run = run_of({scenario({1, 32, 0.1}), two});
  annotate_scaling(run);
  EXPECT_TRUE(run.scaling->series.at(0).model->overlap_lower_bound);
}

TEST(Scaling, NoProjectionWithoutAMeasuredBandwidth) {
  ScenarioResult two = scenario({2, 32, 0.125});
  two.data_parallel->busbw_bytes_per_s = 0;
  RunResult run = run_of({scenario({1, 32, 0.1}), two});
  annotate_scaling(run);
  const auto& series = run.scaling->series.at(0);
  EXPECT_FALSE(series.model);
  EXPECT_NE(series.note.find("no projection"), std::string::npos);
  EXPECT_DOUBLE_EQ(*run.scenarios[1].data_parallel->efficiency, 0.8);
}

TEST(Scaling, RunsWithoutDataParallelScenariosGetNoSection) {
  RunResult run = run_of({scenario({1, 32, 0.1}), scenario({1, 64, 0.2})});
  run.scaling = ScalingSection{};  // from an earlier analysis: dropped
  annotate_scaling(run);
  EXPECT_FALSE(run.scaling);
}

TEST(Scaling, ReannotatingClearsStaleEfficiencies) {
  RunResult run = run_of({scenario({1, 32, 0.1}), scenario({2, 32, 0.125})});
  annotate_scaling(run);
  ASSERT_TRUE(run.scenarios[1].data_parallel->efficiency);
  run.scenarios.erase(run.scenarios.begin());  // e.g. a merge without the reference's shard
  annotate_scaling(run);
  EXPECT_FALSE(run.scenarios[0].data_parallel->efficiency);
  EXPECT_TRUE(run.scenarios[0].data_parallel->efficiency_reference_id.empty());
}

TEST(Scaling, AnnotateRunAnalysesScalingWithOrWithoutABaseline) {
  RunResult run = run_of({scenario({1, 32, 0.1}), scenario({2, 32, 0.125})});
  run.baseline_id = "no such scenario";
  annotate_run(run);
  ASSERT_TRUE(run.scaling);
  EXPECT_DOUBLE_EQ(*run.scenarios[1].data_parallel->efficiency, 0.8);
}

TEST(Scaling, SpeedupOverTheBaselineCountsEveryRanksSamples) {
  // 2 ranks x 32 samples in 0.125 s against 32 in 0.1 s: 1.6x the throughput.
  RunResult run = run_of({scenario({1, 32, 0.1}), scenario({2, 32, 0.125})});
  run.baseline_id = run.scenarios[0].id;
  annotate_run(run);
  ASSERT_TRUE(run.scenarios[1].comparison);
  EXPECT_NEAR(run.scenarios[1].comparison->speedup, 1.6, 1e-9);
}

TEST(Scaling, TopologyNamesBackendAndNodes) {
  DataParallelSection dp;
  dp.backend = "gloo";
  dp.world_size = 2;
  dp.ranks = {{0, "a"}, {1, "a"}};
  EXPECT_EQ(comm_topology(dp), "gloo over loopback, one node (2 ranks)");
  dp.backend = "nccl";
  dp.world_size = 16;
  dp.ranks = {{0, "a"}, {8, "b"}};
  EXPECT_EQ(comm_topology(dp), "nccl, 2 nodes (16 ranks)");
}

}  // namespace
}  // namespace tb
