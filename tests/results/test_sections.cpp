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
  profile.traces = {{"host", "traces/s.host.json"}, {"kineto", "traces/s.kineto.json"}};
  profile.window_steps = 5;
  profile.window_step_time_s = 0.012;
  profile.overhead_vs_timed = 0.03;
  profile.dropped_host_spans = 2;
  profile.cupti_skipped = "CUPTI needs a GPU";
  profile.cupti = {{"gpu_busy_share", 0.8}};
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
  capacity.projection = projection;
  s.capacity = capacity;
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
  capacity.batch_search = {BatchSearchEntry{"mlp", "fp32", 512, 256, 9000.5, true,
                                            {capacity::Probe{256, true, 9000.5, 1 << 20, ""},
                                             capacity::Probe{1024, false, 0, 0, "over budget"}}}};
  capacity.memory_fit = {MemoryFitEntry{"mlp", "fp32", 1e6, 2e3, 0.999, 4, std::int64_t{1} << 30, 536000}};
  run.capacity = capacity;
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
  EXPECT_EQ(s.profile->traces.at("kineto"), "traces/s.kineto.json");
  EXPECT_EQ(s.profile->dropped_host_spans, 2);
  EXPECT_DOUBLE_EQ(s.capacity->flops_per_sample->total(), 3e6);
  EXPECT_EQ(s.capacity->projection->energy_joules, 2.0e7);
  ASSERT_TRUE(back.summary && back.summary->geomean);
  EXPECT_EQ(back.summary->count(ScenarioStatus::crashed), 7);
  EXPECT_FALSE(back.summary->geomean->ci_valid);
  ASSERT_TRUE(back.capacity);
  EXPECT_EQ(back.capacity->batch_search.at(0).probes.at(1).note, "over budget");
  EXPECT_EQ(back.capacity->memory_fit.at(0).memory_bytes, std::int64_t{1} << 30);
}

TEST(ResultSections, SitUnderExtraByTheirNamesAndLeaveUserSectionsThere) {
  const nlohmann::json j = run_with_every_section();
  for (const char* key : {"comparison", "loss_parity", "profile", "capacity", "my_team_section"})
    EXPECT_TRUE(j.at("scenarios").at(0).at("extra").contains(key)) << key;
  for (const char* key : {"summary", "capacity", "nightly"}) EXPECT_TRUE(j.at("extra").contains(key)) << key;

  const RunResult back = j.get<RunResult>();
  // Built-in sections are owned by their typed members, never also by extra.
  EXPECT_EQ(back.extra, (nlohmann::json{{"nightly", {{"build", 42}}}}));
  EXPECT_EQ(back.scenarios.at(0).extra, (nlohmann::json{{"my_team_section", {{"note", "kept as written"}}}}));
}

TEST(ResultSections, HandEditedSectionsReadLeniently) {
  nlohmann::json j = run_with_every_section();
  auto& extra = j["scenarios"][0]["extra"];
  extra["comparison"]["speedup"] = "fast";      // wrong type: the default
  extra["comparison"].erase("ci_low");           // missing: falls back to the speedup
  extra["loss_parity"] = 3;                      // not an object: absent
  extra["capacity"]["projection"]["cost"] = nullptr;
  extra["capacity"]["flops_per_sample"] = {{"total", 5e6}};  // a total alone is kept
  extra["capacity"].erase("mfu_error");
  extra["capacity"]["mfu"] = 1.07;                // from before mfu_error existed
  j["extra"]["summary"]["ok"] = 1e300;            // clamped, never undefined behaviour
  j["extra"]["capacity"]["batch_search"][0]["probes"].push_back("not a probe");
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
}

TEST(ResultSections, AbsentUntilFilled) {
  const ScenarioResult s;
  const nlohmann::json j = s;
  EXPECT_EQ(j.at("extra"), nlohmann::json::object());
  const RunResult run;
  EXPECT_EQ(nlohmann::json(run).at("extra"), nlohmann::json::object());
}

}  // namespace
}  // namespace tb
