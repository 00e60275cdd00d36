#include <trainbench/reporters/findings.hpp>

#include <regex>

#include <gtest/gtest.h>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/measure/precision_support.hpp>
#include "tests/helpers/synthetic_runs.hpp"
#include "tests/reporters/test_reporters_support.hpp"

namespace {

using namespace tb;
using tb::testing::make_run;
using tb::testing::make_segmented_scenario;

// fp32 and amp_bf16 at 0 and 4 workers; bf16 halves the step, workers 4 cut it to a third,
// and the w0 scenarios wait on data for 60% of the step.
RunResult grid() {
  std::vector<ScenarioResult> cells;
  std::uint64_t seed = 1;
  for (auto precision : {Precision::fp32, Precision::amp_bf16})
    for (int workers : {0, 4}) {
      const double ms = (precision == Precision::fp32 ? 30.0 : 15.0) / (workers ? 3.0 : 1.0);
      auto s = make_segmented_scenario("resnet", precision, 64, std::vector<double>(6, ms / 1000), 10, 0.01, seed++);
      s.params.workers = workers;
      s.id = scenario_id(s.params);
      const double data = workers ? 0.05 : 0.6;
      s.phases = {{"data_wait", 0, 0, data}, {"forward", 0, 0, (1 - data) / 3}, {"backward", 0, 0, 2 * (1 - data) / 3}};
      cells.push_back(s);
    }
  auto run = make_run("grid", cells);
  annotate_run(run);
  return run;
}

// Tried as a user: with two rounds there is no interval, and the line read "fastest X, 1.80x
// [no CI] noisy than Y". A verdict that is not a direction is said against the reference.
TEST(Findings, BestConfigurationWithoutADirectionReadsAsASentence) {
  std::vector<ScenarioResult> cells;
  std::uint64_t seed = 1;
  for (int workers : {0, 2}) {
    auto s = make_segmented_scenario("mlp", Precision::fp32, 64, std::vector<double>(2, workers ? 0.010 : 0.018), 10,
                                     0.01, seed++);
    s.params.workers = workers;
    s.id = scenario_id(s.params);
    cells.push_back(s);
  }
  auto run = make_run("two-rounds", cells);
  annotate_run(run);
  const auto groups = report::findings(run);
  bool seen = false;
  for (const auto& g : groups)
    for (const auto& line : g.lines) {
      EXPECT_EQ(line.find("noisy than"), std::string::npos) << line;
      EXPECT_EQ(line.find("same than"), std::string::npos) << line;
      if (line.rfind("fastest mlp/fp32/w2/a1/b64, against mlp/fp32/w0/a1/b64: 1.80x", 0) == 0) seen = true;
    }
  EXPECT_TRUE(seen);
}

TEST(Findings, EffectsBestConfigurationAndBottlenecks) {
  const auto groups = report::findings(grid());
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].heading, "Effect of each setting (per sample, averaged over the other settings)");
  ASSERT_EQ(groups[0].lines.size(), 2u);
  EXPECT_TRUE(std::regex_match(groups[0].lines[0],
                               std::regex(R"(precision amp_bf16 vs fp32: 2\.0\dx \[\d\.\d\d, \d\.\d\d\] faster )"
                                          R"(\(2 pairs, 2\.0\dx to 2\.0\dx across the other settings\))")))
      << groups[0].lines[0];
  EXPECT_TRUE(std::regex_match(groups[0].lines[1], std::regex(R"(workers 4 vs 0: 3\.0\dx .* faster \(2 pairs, .*\))")))
      << groups[0].lines[1];
  EXPECT_EQ(groups[1].heading, "Fastest configuration");
  EXPECT_TRUE(std::regex_match(
      groups[1].lines[0],
      std::regex(R"(fastest resnet/amp_bf16/w4/a1/b64, 6\.\d\dx \[.*\] faster than resnet/fp32/w0/a1/b64)")))
      << groups[1].lines[0];
  EXPECT_TRUE(std::regex_match(
      groups[1].lines[1],
      std::regex(R"(  next: resnet/fp32/w4/a1/b64, which the fastest beats by 2\.\d\dx \[.*\] faster)")))
      << groups[1].lines[1];
  ASSERT_EQ(groups[2].lines.size(), 2u);
  EXPECT_EQ(groups[2].lines[0], "data-bound: 2 of 4, most resnet/fp32/w0/a1/b64 (data wait 60% of the step)");
  EXPECT_EQ(groups[2].lines[1],
            "compute-bound: 2 of 4, most resnet/fp32/w4/a1/b64 (forward+backward+optimizer 95% of the step)");
}

// How the hardware computes bf16, said once after the effects (the run's manifest records it):
// emulated on a CPU without AVX-512 BF16, the path by name where it is native; older runs say
// nothing.
TEST(Findings, ThePrecisionPathIsSaidOnceBesideTheEffects) {
  auto run = grid();
  const auto effect_lines = [](const RunResult& r) { return report::findings(r)[0].lines; };
  EXPECT_EQ(effect_lines(run).size(), 2u) << "a run without the path recorded says nothing of it";
  run.environment["cpu"]["reduced_precision"] = {{"bf16", cpu_precision_path({"avx2"}, ReducedDtype::bfloat16, {})}};
  auto lines = effect_lines(run);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2].rfind("this CPU has no native bf16 (no AVX-512 BF16 or AMX): autocast runs it emulated", 0), 0u)
      << lines[2];
  EXPECT_NE(lines[2].find("say nothing of hardware that computes bf16 natively"), std::string::npos) << lines[2];
  run.environment["cpu"]["reduced_precision"]["bf16"] = cpu_precision_path({"avx512_bf16"}, ReducedDtype::bfloat16, {});
  lines = effect_lines(run);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "bf16 on this CPU: native, AVX-512 BF16 (avx512_bf16)");
}

// Named configurations: the best of each per workload against the first configuration's best;
// compute-only scenarios are said to be so, first.
TEST(Findings, ConfigurationsAndComputeOnlyData) {
  std::vector<ScenarioResult> cells;
  std::uint64_t seed = 1;
  for (const char* configuration : {"plain", "tuned"})
    for (int batch : {32, 64}) {
      const double ms = std::string(configuration) == "plain" ? 30.0 : 10.0;  // per step at either batch
      auto s = make_segmented_scenario("resnet", Precision::fp32, batch, std::vector<double>(6, ms / 1000), 10, 0.01,
                                       seed++);
      s.params.configuration = configuration;
      s.params.dataset_options = {{"placement", "device"}};
      s.id = scenario_id(s.params);
      cells.push_back(s);
    }
  auto run = make_run("configs", cells);
  annotate_run(run);
  const auto groups = report::findings(run);
  ASSERT_GE(groups.size(), 2u);
  EXPECT_EQ(groups[0].heading, "Data");
  EXPECT_NE(groups[0].lines.at(0).find("Compute only: every scenario's batches were made once and kept on the device"),
            std::string::npos)
      << groups[0].lines.at(0);
  EXPECT_EQ(groups[1].heading, "Configurations (the best scenario of each, per workload)");
  ASSERT_EQ(groups[1].lines.size(), 1u);
  // Best tuned (b64, 10 ms: 6400 samples/s) against best plain (b64, 30 ms): 3x per sample.
  EXPECT_TRUE(std::regex_search(groups[1].lines[0],
                                std::regex("^resnet: tuned 3\\.0[0-9]x \\[[0-9.]+, [0-9.]+\\] faster "
                                           "than plain per sample \\(best of each: resnet/fp32/w0/a1/b64/tuned")))
      << groups[1].lines[0];
}

TEST(Findings, ARunWithoutMeasurementsHasNone) {
  auto run = make_run("empty", {tb::testing::failed_scenario("mlp", Precision::fp32, 8, ScenarioStatus::failed, "x")});
  EXPECT_TRUE(report::findings(run).empty());
  EXPECT_EQ(report::bottleneck_cell(run.scenarios[0]), "-");
}

// Every text format opens with the findings, before the scenario table.
TEST(Findings, ComeBeforeTheTablesInEveryFormat) {
  const auto run = grid();
  for (const std::string format : {"console", "md", "html"}) {
    const std::string text = tb::test::render(format, run);
    const auto effects = text.find("Effect of each setting");
    const auto table = text.find(format == "html" ? "<h2>Scenarios</h2>"
                                 : format == "md" ? "| scenario |"
                                                  : "\nscenario ");
    ASSERT_NE(effects, std::string::npos) << format;
    ASSERT_NE(table, std::string::npos) << format;
    EXPECT_LT(effects, table) << format;
    EXPECT_NE(text.find("eff. batch"), std::string::npos) << format;
  }
}

}  // namespace
