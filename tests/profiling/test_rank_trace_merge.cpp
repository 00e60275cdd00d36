// Folding the ranks' host traces into one: a process per rank, named after it, pids apart, and the
// timestamps of ranks on one machine aligned on their shared clock; a missing trace is an error
// naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <trainbench/profiling/rank_trace_merge.hpp>
#include <trainbench/support/error.hpp>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One folder per test: ctest runs them in parallel.
fs::path scratch() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = fs::path(TB_BINARY_DIR) / "test-runs" / (std::string("RankTraceMerge.") + test->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A trace as write_chrome_trace lays it out: process metadata, one slice, its zero in otherData.
std::string write_trace(const fs::path& dir, int rank, std::int64_t start_ns, double slice_ts_us) {
  const json trace = {{"otherData", {{"generator", "trainbench"}, {"trace_start_steady_ns", start_ns}}},
                      {"traceEvents",
                       {{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "Host (trainbench)"}}}},
                        {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", 1}, {"args", {{"sort_index", 0}}}},
                        {{"ph", "X"}, {"name", "step"}, {"pid", 1}, {"tid", 1}, {"ts", slice_ts_us}, {"dur", 10.0}}}}};
  const auto path = dir / ("rank" + std::to_string(rank) + ".json");
  std::ofstream(path) << trace.dump();
  return path.string();
}

json read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

TEST(RankTraceMerge, OneProcessPerRankAlignedOnTheSharedClock) {
  const auto dir = scratch();
  // Rank 1 started recording 2 ms after rank 0: its slice at 0 us is 2000 us into rank 0's trace.
  const std::vector<tb::profiling::RankTrace> traces = {{0, "node", write_trace(dir, 0, 5'000'000, 100.0)},
                                                        {1, "node", write_trace(dir, 1, 7'000'000, 0.0)}};
  tb::profiling::merge_rank_traces(traces, "mlp/fp32/w0/a1/b32/r2", (dir / "merged.json").string());
  const json merged = read(dir / "merged.json");
  EXPECT_EQ(merged["otherData"]["name"], "mlp/fp32/w0/a1/b32/r2");
  EXPECT_TRUE(merged["otherData"]["aligned"].get<bool>());
  std::map<long, std::string> process_names;
  std::map<long, double> slice_ts;
  for (const auto& e : merged["traceEvents"]) {
    if (e["name"] == "process_name") process_names[e["pid"].get<long>()] = e["args"]["name"];
    if (e["ph"] == "X") slice_ts[e["pid"].get<long>()] = e["ts"].get<double>();
  }
  EXPECT_EQ(process_names,
            (std::map<long, std::string>{{1, "rank 0: Host (trainbench)"}, {1001, "rank 1: Host (trainbench)"}}));
  EXPECT_DOUBLE_EQ(slice_ts[1], 100.0);
  EXPECT_DOUBLE_EQ(slice_ts[1001], 2000.0);
}

TEST(RankTraceMerge, OtherHostsKeepTheirOwnZero) {
  const auto dir = scratch();
  const std::vector<tb::profiling::RankTrace> traces = {{0, "a", write_trace(dir, 0, 5'000'000, 100.0)},
                                                        {1, "b", write_trace(dir, 1, 9'000'000, 0.0)}};
  tb::profiling::merge_rank_traces(traces, "s", (dir / "merged.json").string());
  const json merged = read(dir / "merged.json");
  EXPECT_FALSE(merged["otherData"]["aligned"].get<bool>());
  for (const auto& e : merged["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 1001) { EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.0); }
  }
}

TEST(RankTraceMerge, MissingTraceNamesTheFile) {
  const auto dir = scratch();
  const std::string missing = (dir / "nope.json").string();
  try {
    tb::profiling::merge_rank_traces({{1, "node", missing}}, "s", (dir / "merged.json").string());
    FAIL() << "merged a missing trace";
  } catch (const tb::InputError& e) {
    EXPECT_EQ(e.file(), missing);
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
}

}  // namespace
