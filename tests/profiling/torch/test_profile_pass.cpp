// The profiling pass of a tiny CPU run: the host trace has the memory timeline as a counter
// track ("ph":"C") and results.json the same series (extra.profile.memory_timeline).
#include <trainbench/profiling/torch/profile_pass.hpp>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include "tests/helpers/scratch_dir.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;

TEST(ProfilePass, MemoryTimelineInTheHostTraceAndTheResults) {
  const auto dir = test::scratch_dir("profile_pass_memory");
  const auto matrix = nlohmann::json::parse(R"({
    "name": "profiled",
    "model": "mlp",
    "device": "cpu",
    "dataset_options": {"samples": 256, "features": 32},
    "model_options": {"hidden": 256},
    "steps": {"warmup": 1, "min": 2, "max": 2, "time_budget_s": 1},
    "profile": {"enabled": true, "window": 8, "host_trace": true, "kineto": false},
    "axes": {"batch": [64]}
  })");
  RunOptions options;
  options.out_dir = dir.string();
  options.formats = {};
  const RunResult run = run_matrix(parse_matrix(matrix, "profiled.json", default_parse_options()), options);
  ASSERT_EQ(run.scenarios.size(), 1u);
  const auto& s = run.scenarios[0];
  ASSERT_EQ(s.status, ScenarioStatus::ok) << s.message;
  ASSERT_TRUE(s.profile);

  const auto& timeline = s.profile->memory_timeline;
  ASSERT_TRUE(timeline.is_object()) << "no memory timeline";
  EXPECT_EQ(timeline.at("source"), "rss");
  const auto& times = timeline.at("t_ms");
  ASSERT_GE(times.size(), 2u);  // at least the window's start and end
  EXPECT_EQ(times.size(), timeline.at("bytes").size());
  EXPECT_GT(timeline.at("peak_bytes").get<std::int64_t>(), 0);
  for (const auto& b : timeline.at("bytes"))
    EXPECT_LE(b.get<std::int64_t>(), timeline.at("peak_bytes").get<std::int64_t>());

  // Saved and read back with the rest of results.json.
  const RunResult loaded = load_results((dir / "results.json").string());
  ASSERT_TRUE(loaded.scenarios.at(0).profile);
  EXPECT_EQ(loaded.scenarios[0].profile->memory_timeline, timeline);

  ASSERT_TRUE(s.profile->traces.count("host"));
  std::ifstream in(dir / s.profile->traces.at("host"));
  const auto trace = nlohmann::json::parse(in);
  std::size_t counters = 0;
  for (const auto& e : trace.at("traceEvents"))
    if (e.value("ph", "") == "C" && e.value("name", "") == "memory_timeline_rss_bytes") {
      EXPECT_GT(e.at("args").at("value").get<double>(), 0);
      ++counters;
    }
  EXPECT_EQ(counters, times.size());
}

}  // namespace
}  // namespace tb
