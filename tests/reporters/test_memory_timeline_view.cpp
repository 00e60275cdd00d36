// How reports show the profiling window's memory timeline: the summary line and the chart data.
#include <trainbench/reporters/memory_timeline_view.hpp>

#include <gtest/gtest.h>

namespace tb::report {
namespace {

ScenarioResult profiled(const std::string& id, nlohmann::json timeline) {
  ScenarioResult s;
  s.id = id;
  s.profile = ProfileSection{};
  s.profile->memory_timeline = std::move(timeline);
  return s;
}

nlohmann::json timeline() {
  constexpr std::int64_t kMiB = 1 << 20;
  return {{"source", "rss"},
          {"interval_ms", 1.0},
          {"readings", 121},
          {"peak_bytes", 1024 * kMiB},
          {"peak_t_ms", 35.0},
          {"t_ms", nlohmann::json::array({0.0, 35.0, 120.0})},
          {"bytes", nlohmann::json::array({812 * kMiB, 1024 * kMiB, 815 * kMiB})}};
}

TEST(MemoryTimelineView, SummaryGivesThePeakAndTheWindow) {
  EXPECT_EQ(memory_timeline_summary(profiled("a", timeline())),
            "peak 1.0 GiB RSS at 35.0 ms of the 120.0 ms window (start 812.0 MiB, end 815.0 MiB; 121 readings, "
            "one every 1 ms)");
  EXPECT_EQ(memory_timeline_summary(ScenarioResult{}), "");  // not profiled
  auto broken = timeline();
  broken["bytes"] = nlohmann::json::array({1});  // arrays of different lengths: an edited file
  EXPECT_EQ(memory_timeline_summary(profiled("b", broken)), "");
}

TEST(MemoryTimelineView, ChartHasOneLinePerProfiledScenario) {
  RunResult run;
  run.scenarios = {profiled("a", timeline()), ScenarioResult{}, profiled("c", timeline())};
  const auto chart = memory_timeline_chart(run);
  ASSERT_TRUE(chart);
  EXPECT_EQ(chart->at("kind"), "memory");
  ASSERT_EQ(chart->at("datasets").size(), 2u);
  const auto& line = chart->at("datasets").at(0);
  EXPECT_EQ(line.at("label"), "a");
  EXPECT_EQ(line.at("peak_mib"), 1024.0);
  EXPECT_EQ(line.at("data").at(1), (nlohmann::json{{"x", 35.0}, {"y", 1024.0}}));
  EXPECT_FALSE(memory_timeline_chart(RunResult{}));
}

}  // namespace
}  // namespace tb::report
