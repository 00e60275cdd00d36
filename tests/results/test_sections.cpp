// The typed result sections (results/sections.hpp): every field survives a round trip through
// results.json, hand-edited sections read leniently, and built-in sections never linger in
// `extra` while a user's own sections stay there.
#include <gtest/gtest.h>

#include <cmath>

#include <trainbench/capacity/utilization.hpp>
#include <trainbench/results/results.hpp>

namespace tb {
namespace {

// Every field set to a value other than its default, so a field that to_json forgets or
// from_json skips shows up as a difference.
ScenarioResult scenario_with_every_section() {
  ScenarioResult s;
  s.id = "mlp/amp_bf16/w0/a1/b32";
  s.comparison = ComparisonSection{"mlp/fp32/w0/a1/b32", 1.4, 1.3, 1.5, false, "faster"};
  s.loss_parity = LossParitySection{"mlp/fp32/w0/a1/b32", 0.01, 0.05, true, 45};
  ProfileSection profile;
  profile.traces = {{"host", "traces/s.host.json"}, {"kineto", "traces/s.pt.trace.json"}};
  profile.window_steps = 5;
  profile.window_step_time_s = 0.012;
  profile.overhead_vs_timed = 0.03;
  profile.dropped_host_spans = 2;
  profile.cupti_skipped = "CUPTI needs a GPU";
  profile.cupti = {{"gpu_busy_share", 0.8}};
  profile.memory_timeline = {{"source", "rss"}, {"peak_bytes", 300}, {"t_ms", {0.0, 1.0}}, {"bytes", {100, 300}}};
  s.profile = profile;
  ScenarioCapacitySection capacity;
  capacity.flops_per_sample = capacity::FlopCount{1e6, 2e6};
  capacity.achieved_flops_per_s = 3e9;
  capacity.peak_flops_per_s = 2e12;
  capacity.peak_source = "measured";
  capacity.peak_detail = "matmul n=4096 bf16";
  capacity.mfu = 0.0015;
  capacity::Projection projection;
  projection.target_samples = 1e7;
  projection.steps = 312500;
  projection.time_s = 3600;
  projection.ci_low_s = 3500;
  projection.ci_high_s = 3700;
  projection.device_hours = 8;
  projection.num_devices = 8;
  projection.price_per_device_hour = 2.5;
  projection.cost = 20;
  projection.cost_ci_low = 19;
  projection.cost_ci_high = 21;
  projection.avg_power_watts = 700;
  projection.energy_joules = 2.0e7;
  projection.energy_basis = "measured";
  projection.joules_per_step = 64;
  projection.energy_kwh = 2.0e7 / 3.6e6;
  projection.price_per_kwh = 0.25;
  projection.energy_cost = 2.0e7 / 3.6e6 * 0.25;
  capacity.projection = projection;
  s.capacity = capacity;
  DataParallelSection dp;
  dp.backend = "gloo";
  dp.world_size = 2;
  dp.scaling = "strong";
  dp.global_batch = 64;
  dp.bucket_mb = 25;
  dp.buckets = 3;
  dp.gradient_bytes = 1 << 20;
  dp.exposed_comm_s = 0.002;
  dp.overlapped_comm_s = 0.001;
  dp.allreduce_s = 0.0025;
  dp.algbw_bytes_per_s = 4.2e8;
  dp.busbw_bytes_per_s = 4.2e8;
  dp.latency_s = 5e-5;
  dp.efficiency = 0.91;
  dp.efficiency_reference_id = "mlp/fp32/w0/a1/strong";
  dp.ranks = {RankTiming{0, "node-a", 0.02, 1600, 0.018, 0.002}, RankTiming{1, "node-a", 0.021, 1550, 0.019, 0.002}};
  s.data_parallel = dp;
  s.energy = EnergyResult{true, "rapl", "CPU packages 0", "", 20.0, 10, 2.0, 32.0};
  s.dataset = DatasetSection{50000};
  s.flops_per_sample = capacity::FlopCount{1e6, 2e6};
  Disturbance d;
  d.available = true;
  d.other_cpu_cores = 0.4;
  d.other_cpu_cores_resolution = 0.01;
  d.steal_fraction = 0.02;
  d.load_avg_max = 2.5;
  d.num_cpus = 2;
  d.segments = 3;
  d.wall_s = 1.5;
  d.process_cpu_s = 1.4;
  d.contended = true;
  d.reason = "other processes used 0.40 cores on average (threshold 0.25)";
  d.thresholds = {0.3, 0.1};
  GpuLoad gpu;
  gpu.available = true;
  GpuDeviceLoad device;
  device.index = 1;
  device.samples = 6;
  device.min_sm_clock_mhz = 1200;
  device.max_sm_clock_mhz = 1980;
  device.min_mem_clock_mhz = 2619;
  device.max_temperature_c = 83;
  device.max_power_w = 690.5;
  device.clocks_event_reasons = 0x20;
  gpu.devices = {device};
  gpu.throttled = true;
  gpu.reason = "GPU 1 slowed by sw_thermal_slowdown";
  d.add_gpu_load(gpu);
  s.disturbance = d;
  s.provenance.shard = ScenarioShard{2, 17};
  s.provenance.measured_in_resume = 1;
  s.extra["my_team_section"] = {{"note", "kept as written"}};
  return s;
}

RunResult run_with_every_section() {
  RunResult run;
  run.run_id = "r1";
  run.scenarios.push_back(scenario_with_every_section());
  SummarySection summary;
  for (int i = 0; i < kScenarioStatusCount; ++i) summary.by_status[i] = i + 1;
  summary.contended = 2;
  summary.compared = 3;
  summary.geomean = GeomeanSpeedup{1.2, 1.1, 1.3, false};
  run.summary = summary;
  RunCapacitySection capacity;
  capacity.memory_limit_bytes = 1 << 30;
  capacity.limit_source = "budget";
  capacity.batch_search = {BatchSearchEntry{
      "mlp",
      "fp32",
      512,
      256,
      9000.5,
      true,
      {capacity::Probe{256, true, 9000.5, 1 << 20, ""}, capacity::Probe{1024, false, 0, 0, "over budget"}}}};
  capacity.memory_fit = {MemoryFitEntry{"mlp", "fp32", 1e6, 2e3, 0.999, 4, std::int64_t{1} << 30, 536000}};
  run.capacity = capacity;
  ScalingSeries series;
  series.label = "mlp/fp32/w0/a1";
  series.scaling = "strong";
  series.global_batch = 64;
  series.reference_id = "mlp/fp32/w0/a1/b64";
  series.reference_samples_per_s = 3000;
  series.reducer_alone_id = "mlp/fp32/w0/a1/b64 (reducer)";
  series.ddp_overhead = 0.04;
  series.members = {ScalingMember{"mlp/fp32/w0/a1/b64", 1, false, 0.02, 3000, 3000, 1.0},
                    ScalingMember{"mlp/fp32/w0/a1/b32/r2", 2, false, 0.012, 5400, 2700, 0.9}};
  ScalingModelSection model;
  model.calibrated_on = "mlp/fp32/w0/a1/b32/r2";
  model.backend = "gloo";
  model.topology = "gloo over loopback, one node (2 ranks)";
  model.parameters = capacity::StepModel{true, 2, 64, 0.01, 4e6, 0.001, {2.5e-5, 4e8}};
  model.overlap_lower_bound = true;
  model.compute_assumption = "linear in the per-rank batch";
  model.efficiency_reference = "measured world size 1";
  model.limits = {"one node", "no contention"};
  model.points = {capacity::ProjectedPoint{8, 64, 0.0025, 0.0175, 0.0165, 0.019, 3368.4, 0.14}};
  model.checks = {ScalingCheck{"mlp/fp32/w0/a1/b32/r2", 2, 0.012, 0.0121, 0.0083, true, "calibrated here"}};
  series.model = model;
  series.note = "a note";
  run.scaling = ScalingSection{{series}};
  capacity::PeakResult peak{3.5e11, 1024,   "bfloat16", "cpu",
                            0.0061, 5,      2,          2,
                            3.1e11, 3.6e11, 0.14,       {capacity::PeakSizeResult{1024, 3.5e11, 3.1e11, 3.6e11, 5, 2}}};
  run.peaks = std::vector<PeakEntry>{{"cpu", "amp_bf16", peak}};
  run.provenance.shard = ShardRecord{{2, 3}, "00ff00ff00ff00ff", 9};
  run.provenance.resume = ResumeProvenance{1, "2026-12-05T12:00:00Z", {"mlp/amp_bf16/w0/a1/b32"}, true, {"cpu.model"}};
  run.provenance.ab_session = AbSessionProvenance{"ab-1", "new", 2};
  run.provenance.ranks = RanksProvenance{4, 2, "torchrun"};
  run.provenance.isolated = true;
  run.extra["nightly"] = {{"build", 42}};
  return run;
}

TEST(ResultSections, EveryFieldRoundTripsThroughJson) {
  const RunResult run = run_with_every_section();
  const nlohmann::json written = run;
  const RunResult back = written.get<RunResult>();
  // Equal JSON after a second write means nothing was lost or changed on the way.
  EXPECT_EQ(nlohmann::json(back), written);
  const auto& s = back.scenarios.at(0);
  ASSERT_TRUE(s.comparison && s.loss_parity && s.profile && s.capacity);
  EXPECT_EQ(s.comparison->verdict, "faster");
  EXPECT_FALSE(s.comparison->ci_valid);
  EXPECT_EQ(s.loss_parity->steps_compared, 45);
  EXPECT_EQ(s.profile->traces.at("kineto"), "traces/s.pt.trace.json");
  EXPECT_EQ(s.profile->dropped_host_spans, 2);
  EXPECT_DOUBLE_EQ(s.capacity->flops_per_sample->total(), 3e6);
  EXPECT_EQ(s.capacity->projection->energy_joules, 2.0e7);
  EXPECT_EQ(s.capacity->projection->energy_basis, "measured");
  EXPECT_EQ(s.capacity->projection->price_per_kwh, 0.25);
  EXPECT_EQ(s.profile->memory_timeline.at("peak_bytes"), 300);
  ASSERT_TRUE(back.summary && back.summary->geomean);
  EXPECT_EQ(back.summary->count(ScenarioStatus::crashed), 7);
  EXPECT_FALSE(back.summary->geomean->ci_valid);
  ASSERT_TRUE(back.capacity);
  EXPECT_EQ(back.capacity->batch_search.at(0).probes.at(1).note, "over budget");
  EXPECT_EQ(back.capacity->memory_fit.at(0).memory_bytes, std::int64_t{1} << 30);
  ASSERT_TRUE(s.data_parallel);
  EXPECT_EQ(s.data_parallel->ranks.at(1).host, "node-a");
  EXPECT_EQ(s.data_parallel->efficiency, 0.91);
  ASSERT_TRUE(back.scaling && back.scaling->series.size() == 1);
  const auto& series = back.scaling->series.at(0);
  EXPECT_EQ(series.ddp_overhead, 0.04);
  ASSERT_TRUE(series.model);
  EXPECT_TRUE(series.model->parameters.strong);
  EXPECT_EQ(series.model->parameters.comm.busbw_bytes_per_s, 4e8);
  EXPECT_EQ(series.model->points.at(0).efficiency, 0.14);
  EXPECT_TRUE(series.model->checks.at(0).calibration_point);
  EXPECT_EQ(series.model->label, "projected (model)");
  ASSERT_TRUE(s.energy && s.dataset && s.flops_per_sample && s.disturbance);
  EXPECT_EQ(s.energy->scope, "CPU packages 0");
  EXPECT_EQ(s.energy->samples_per_joule, 32.0);
  EXPECT_EQ(s.dataset->samples, 50000);
  EXPECT_DOUBLE_EQ(s.flops_per_sample->backward, 2e6);
  EXPECT_EQ(s.disturbance->process_cpu_s, 1.4);
  EXPECT_EQ(s.disturbance->thresholds.steal_fraction, 0.1);
  ASSERT_TRUE(s.disturbance->gpu);
  EXPECT_EQ(s.disturbance->gpu->devices.at(0).max_temperature_c, 83u);
  EXPECT_EQ(s.disturbance->gpu->devices.at(0).clocks_event_reasons, 0x20u);
  EXPECT_EQ(s.provenance, run.scenarios.at(0).provenance);
  EXPECT_EQ(back.provenance, run.provenance);
  ASSERT_TRUE(back.peaks && back.peaks->size() == 1);
  EXPECT_EQ(back.peaks->at(0).peak.sizes.at(0).matmuls_per_block, 2);
  EXPECT_EQ(back.peaks->at(0).peak.threads, 2);
}

// A throttled GPU makes the scenario contended and says why after the host's reason.
TEST(ResultSections, AThrottledGpuMakesTheScenarioContended) {
  Disturbance quiet;
  quiet.available = true;
  GpuLoad cool;
  cool.available = true;
  quiet.add_gpu_load(cool);
  EXPECT_FALSE(quiet.contended);
  ASSERT_TRUE(quiet.gpu);
  Disturbance loaded;
  loaded.contended = true;
  loaded.reason = "steal 9%";
  GpuLoad hot = cool;
  hot.throttled = true;
  loaded.add_gpu_load(hot);
  EXPECT_TRUE(loaded.contended);
  EXPECT_EQ(loaded.reason, "steal 9%; GPU thermal or hardware slowdown");
  quiet.add_gpu_load(hot);
  EXPECT_EQ(quiet.reason, "GPU thermal or hardware slowdown");
}

// A scenario that measured nothing has no disturbance: {} in the file, as before it was typed.
TEST(ResultSections, NoDisturbanceIsAnEmptyObject) {
  ScenarioResult failed;
  failed.id = "x";
  const nlohmann::json j = failed;
  EXPECT_EQ(j.at("metrics").at("disturbance"), nlohmann::json::object());
  EXPECT_FALSE(j.get<ScenarioResult>().disturbance.has_value());
  EXPECT_FALSE(failed.contended());
  EXPECT_EQ(failed.disturbance_reason(), "");
}

TEST(ResultSections, SitUnderExtraByTheirNamesAndLeaveUserSectionsThere) {
  const nlohmann::json j = run_with_every_section();
  for (const char* key : {"comparison", "loss_parity", "profile", "capacity", "data_parallel", "energy", "dataset",
                          "flops_per_sample", "my_team_section"})
    EXPECT_TRUE(j.at("scenarios").at(0).at("extra").contains(key)) << key;
  for (const char* key : {"summary", "capacity", "scaling", "peaks", "nightly"})
    EXPECT_TRUE(j.at("extra").contains(key)) << key;
  // Provenance is not a section: it has its own object, at the run and in every scenario.
  EXPECT_EQ(j.at("provenance").size(), 5u);
  EXPECT_EQ(j.at("scenarios").at(0).at("provenance").size(), 2u);

  const RunResult back = j.get<RunResult>();
  // Built-in sections are owned by their typed members, never also by extra.
  EXPECT_EQ(back.extra, (nlohmann::json{{"nightly", {{"build", 42}}}}));
  EXPECT_EQ(back.scenarios.at(0).extra, (nlohmann::json{{"my_team_section", {{"note", "kept as written"}}}}));
}

TEST(ResultSections, HandEditedSectionsReadLeniently) {
  nlohmann::json j = run_with_every_section();
  auto& extra = j["scenarios"][0]["extra"];
  extra["comparison"]["speedup"] = "fast";  // wrong type: the default
  extra["comparison"].erase("ci_low");      // missing: falls back to the speedup
  extra["loss_parity"] = 3;                 // not an object: absent
  extra["capacity"]["projection"]["cost"] = nullptr;
  extra["capacity"]["flops_per_sample"] = {{"total", 5e6}};  // a total alone is kept
  extra["capacity"].erase("mfu_error");
  extra["capacity"]["mfu"] = 1.07;      // from before mfu_error existed
  j["extra"]["summary"]["ok"] = 1e300;  // clamped, never undefined behaviour
  j["extra"]["capacity"]["batch_search"][0]["probes"].push_back("not a probe");
  extra["data_parallel"]["ranks"].push_back(7);  // not a rank: skipped
  extra["data_parallel"]["world_size"] = -3;     // clamped to 1
  auto& series = j["extra"]["scaling"]["series"][0];
  series["members"][0].erase("per_rank_samples_per_s");  // derived from the rest
  series["members"][1]["world_size"] = 2;
  series["model"]["parameters"]["busbw_bytes_per_s"] = "fast";  // the default
  series["model"]["points"].push_back(nullptr);                 // skipped
  series["model"]["limits"].push_back(3);                       // not a text: skipped
  series["model"].erase("label");                               // still labelled a model
  j["extra"]["scaling"]["series"].push_back("not a series");
  extra["energy"]["joules_per_step"] = "2";                       // no figure then
  extra["dataset"]["samples"] = 1e300;                            // clamped
  j["extra"]["peaks"].push_back(5);                               // not an entry: skipped
  j["extra"]["peaks"][0]["peak"]["sizes"][0]["blocks"] = "five";  // the default
  const RunResult back = j.get<RunResult>();
  const auto& s = back.scenarios.at(0);
  EXPECT_EQ(s.comparison->speedup, 0.0);
  EXPECT_EQ(s.comparison->ci_low, s.comparison->speedup);
  EXPECT_FALSE(s.loss_parity.has_value());
  EXPECT_FALSE(s.extra.contains("loss_parity"));
  EXPECT_FALSE(s.capacity->projection->cost.has_value());
  EXPECT_DOUBLE_EQ(s.capacity->flops_per_sample->total(), 5e6);
  EXPECT_EQ(s.capacity->mfu_error, capacity::mfu_error(1.07));
  EXPECT_EQ(back.summary->count(ScenarioStatus::ok), 1'000'000'000);
  EXPECT_EQ(back.capacity->batch_search.at(0).probes.size(), 2u);
  EXPECT_EQ(s.data_parallel->ranks.size(), 2u);
  EXPECT_EQ(s.data_parallel->world_size, 1);
  ASSERT_EQ(back.scaling->series.size(), 1u);
  const auto& read = back.scaling->series.at(0);
  EXPECT_EQ(read.members.at(0).per_rank_samples_per_s, 3000);
  EXPECT_EQ(read.model->parameters.comm.busbw_bytes_per_s, 0);
  EXPECT_EQ(read.model->points.size(), 1u);
  EXPECT_EQ(read.model->limits.size(), 2u);
  EXPECT_EQ(read.model->label, "projected (model)");
  EXPECT_FALSE(s.energy->has_figures());
  EXPECT_GE(s.dataset->samples, std::int64_t{1} << 62);  // clamped into range, never undefined behaviour
  ASSERT_EQ(back.peaks->size(), 1u);
  EXPECT_EQ(back.peaks->at(0).peak.sizes.at(0).blocks, 0);
}

TEST(ResultSections, AbsentUntilFilled) {
  const ScenarioResult s;
  const nlohmann::json j = s;
  EXPECT_EQ(j.at("extra"), nlohmann::json::object());
  const RunResult run;
  EXPECT_EQ(nlohmann::json(run).at("extra"), nlohmann::json::object());
  EXPECT_EQ(j.at("provenance"), nlohmann::json::object());
  EXPECT_EQ(nlohmann::json(run).at("provenance"), nlohmann::json::object());
}

}  // namespace
}  // namespace tb
