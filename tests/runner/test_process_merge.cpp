// merge_process_parts: one side of an A/B session measured by several worker processes becomes
// one run with every process's segments.
#include <trainbench/runner/process_merge.hpp>

#include <gtest/gtest.h>

#include "tests/helpers/synthetic_runs.hpp"

namespace {

using namespace tb;
using tb::testing::make_run;
using tb::testing::make_segmented_scenario;

// A process that measured `rounds` of one scenario at the given segment medians.
ScenarioResult part_of(const std::vector<double>& medians, int first_round, std::uint64_t seed) {
  ScenarioResult s = make_segmented_scenario("mlp", Precision::fp32, 32, medians, 10, 0.01, seed);
  for (auto& g : s.segments) g.round += first_round;
  s.warmup_steps = 3;
  s.wall_s = 1.0;
  return s;
}

TEST(ProcessMerge, SegmentsOfEveryProcessMakeOneScenario) {
  // Two processes, two rounds each; the second is 10% slower as a whole (another process).
  const RunResult a = make_run("p0", {part_of({0.010, 0.0102}, 0, 1)});
  const RunResult b = make_run("p1", {part_of({0.011, 0.0112}, 2, 7)});
  const RunResult m = merge_process_parts({a, b});
  ASSERT_EQ(m.scenarios.size(), 1u);
  const auto& s = m.scenarios[0];
  ASSERT_EQ(s.segments.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(s.segments[r].round, r);
  EXPECT_EQ(s.step_times_s.size(), 40u);
  EXPECT_EQ(s.measured_steps, a.scenarios[0].measured_steps + b.scenarios[0].measured_steps);
  EXPECT_EQ(s.warmup_steps, 6);
  EXPECT_DOUBLE_EQ(s.wall_s, 2.0);
  // The typical step time and its interval come from all four segments.
  EXPECT_GT(s.step_time_s.median, 0.0101);
  EXPECT_LT(s.step_time_s.median, 0.0110);
  EXPECT_TRUE(s.step_time_s.has_interval());
  EXPECT_NEAR(s.samples_per_s, 32 / s.step_time_s.median, 1e-9);
  EXPECT_EQ(m.run_id, "p0");
}

TEST(ProcessMerge, ABrokenPartBreaksTheScenarioAndContentionSticks) {
  RunResult a = make_run("p0", {part_of({0.010, 0.010}, 0, 1)});
  RunResult b = make_run("p1", {part_of({0.010}, 2, 3)});
  b.scenarios[0].status = ScenarioStatus::failed;
  b.scenarios[0].message = "boom";
  b.scenarios[0].disturbance = Disturbance{};
  b.scenarios[0].disturbance->contended = true;
  b.scenarios[0].disturbance->reason = "other processes used 1.9 cores";
  const auto s = merge_process_parts({a, b}).scenarios.at(0);
  EXPECT_EQ(s.status, ScenarioStatus::failed);
  EXPECT_EQ(s.message, "boom");
  EXPECT_TRUE(s.contended());
  EXPECT_THROW(merge_process_parts({}), std::invalid_argument);
}

}  // namespace
