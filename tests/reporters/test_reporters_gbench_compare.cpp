// The gbench export is read by google/benchmark's own tools/compare.py (Debian:
// libbenchmark-tools, /usr/share/benchmark/compare.py). Needs a python with numpy and scipy:
// $TB_PYTHON, python3, or the trainbench venv; skipped when none has them.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/reporters/gbench_reporter.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

constexpr const char* kComparePy = "/usr/share/benchmark/compare.py";

std::string python_with_scipy() {
  std::vector<std::string> candidates;
  if (const char* p = std::getenv("TB_PYTHON")) candidates.emplace_back(p);
  candidates.emplace_back("python3");
  if (const char* home = std::getenv("HOME"))
    candidates.push_back(std::string(home) + "/.cache/trainbench/venv/bin/python");
  for (const auto& py : candidates)
    if (test::run_command(py + " -c 'import numpy, scipy' >/dev/null").exit_code == 0) return py;
  return "";
}

TEST(GbenchExport, GoogleBenchmarkComparePyReadsIt) {
  if (!std::filesystem::exists(kComparePy)) GTEST_SKIP() << kComparePy << " not installed";
  const std::string python = python_with_scipy();
  if (python.empty()) GTEST_SKIP() << "no python with numpy and scipy (compare.py needs them)";

  const auto dir = test::scratch_dir("gbench_compare");
  auto run = test::fixture_run();
  for (auto& s : run.scenarios)  // CPU time as a new run records it: 90% of the wall time
    s.disturbance.emplace().process_cpu_s = 0.9 * s.measured_steps * s.step_time_s.median;
  // The first scenario measured in 9 rounds: 9 repetitions, enough for compare.py's U test.
  auto& segmented = run.scenarios[0];
  for (int r = 0; r < 9; ++r) {
    const double median = segmented.step_time_s.median * (1 + 0.01 * (r % 3 - 1));
    segmented.segments.push_back({r, 10, median, r * 1.0, 0.9 * 10 * median});
  }
  auto base = GbenchReporter::to_gbench_json(run);
  auto slower = base;
  for (auto& b : slower.at("benchmarks")) {
    b["real_time"] = b.at("real_time").get<double>() * 1.1;
    if (b.contains("cpu_time")) b["cpu_time"] = b.at("cpu_time").get<double>() * 1.1;
  }
  std::ofstream(dir / "a.json") << base.dump(2);
  std::ofstream(dir / "b.json") << slower.dump(2);

  const auto res = test::run_command(python + " " + kComparePy + " --no-color benchmarks " + (dir / "a.json").string() +
                                     " " + (dir / "b.json").string());
  ASSERT_EQ(res.exit_code, 0) << res.output;
  for (const auto& b : base.at("benchmarks"))
    EXPECT_NE(res.output.find(b.at("name").get<std::string>()), std::string::npos) << b.at("name") << " missing from:\n"
                                                                                   << res.output;
  EXPECT_NE(res.output.find("+0.1000"), std::string::npos) << "10% slower not reported:\n" << res.output;
  // The repetitions' spread gives the U test (9 of them: no "results unreliable" warning), and
  // the aggregates are compared like google/benchmark's own.
  const std::string first = base.at("benchmarks").at(0).at("name");
  EXPECT_NE(res.output.find(first + "_pvalue"), std::string::npos) << res.output;
  EXPECT_EQ(res.output.find("WARNING: Results unreliable"), std::string::npos) << res.output;
  EXPECT_NE(res.output.find(first + "_median"), std::string::npos) << res.output;
  // compare.py prints whole time units: in microseconds a 4.19 ms step keeps its digits ("4188"),
  // where milliseconds printed "4".
  const double first_us = base.at("benchmarks").at(0).at("real_time").get<double>();
  EXPECT_GT(first_us, 1000);
  EXPECT_NE(res.output.find(" " + std::to_string(std::llround(first_us)) + " "), std::string::npos) << res.output;
}

// Two runs of one build (an A/A pair): compare.py's U test must not call either column
// significant. Each repetition carries its own segment's CPU time; when every repetition carried
// the scenario's average (standard deviation 0), compare.py gave p = 0.0001 on the CPU column of
// every A/A pair while the wall-time p-values were 0.13-1.0.
TEST(GbenchExport, AnAaPairIsNotSignificantInEitherColumn) {
  if (!std::filesystem::exists(kComparePy)) GTEST_SKIP() << kComparePy << " not installed";
  const std::string python = python_with_scipy();
  if (python.empty()) GTEST_SKIP() << "no python with numpy and scipy (compare.py needs them)";
  const auto dir = test::scratch_dir("gbench_compare_aa");
  // Segment medians and CPU times with the same 5% spread in both runs (fixed draws).
  const auto measured = [](unsigned seed) {
    auto run = test::fixture_run();
    run.scenarios.resize(1);
    auto& s = run.scenarios[0];
    s.segments.clear();
    unsigned state = seed;
    const auto noise = [&] {  // a small LCG: the same draws on every machine
      state = state * 1664525u + 1013904223u;
      return (static_cast<double>(state >> 8) / static_cast<double>(1u << 24) - 0.5) * 0.1;
    };
    for (int r = 0; r < 9; ++r) {
      const double median = s.step_time_s.median * (1 + noise());
      s.segments.push_back({r, 10, median, r * 1.0, 0.9 * 10 * median * (1 + noise())});
    }
    return GbenchReporter::to_gbench_json(run);
  };
  std::ofstream(dir / "a.json") << measured(1).dump(2);
  std::ofstream(dir / "b.json") << measured(2).dump(2);
  const auto res = test::run_command(python + " " + kComparePy + " --no-color benchmarks " + (dir / "a.json").string() +
                                     " " + (dir / "b.json").string());
  ASSERT_EQ(res.exit_code, 0) << res.output;
  // "<name>_pvalue   <wall p>   <cpu p>   U Test, Repetitions: 9 vs 9"
  const auto at = res.output.find("_pvalue");
  ASSERT_NE(at, std::string::npos) << res.output;
  std::istringstream line(res.output.substr(at + 7));
  double wall_p = -1, cpu_p = -1;
  line >> wall_p >> cpu_p;
  EXPECT_GT(wall_p, 0.05) << res.output;
  EXPECT_GT(cpu_p, 0.05) << res.output;
}

}  // namespace
}  // namespace tb
