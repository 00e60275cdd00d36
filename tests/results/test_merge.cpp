// trainbench merge's logic: the shards of one matrix become the unsharded scenario set in matrix
// order with the shared baseline and fresh comparisons; anything that is not n shards of one
// matrix from one environment is refused, naming the shard's folder and the field.
#include <trainbench/results/merge.hpp>

#include <algorithm>
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/measure/comparison.hpp>
#include <trainbench/runner/shard.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/shard_runs.hpp"

namespace {

using namespace tb;
using tb::testing::full_matrix;
using tb::testing::measured;
using tb::testing::shards_of;

std::vector<std::string> ids(const std::vector<ScenarioResult>& scenarios) {
  std::vector<std::string> out;
  for (const auto& s : scenarios) out.push_back(s.id);
  return out;
}

TEST(Merge, AllShardsGiveTheUnshardedScenarioSetInMatrixOrder) {
  const auto all = full_matrix();
  std::vector<std::string> expected;
  for (const auto& p : all) expected.push_back(scenario_id(p));
  std::mt19937 rng(3);
  for (int count : {1, 2, 3, 7, 9}) {  // 9 shards of 7 scenarios: two shards measure nothing
    auto shards = shards_of(all, count);
    std::shuffle(shards.begin(), shards.end(), rng);  // the order of the folders does not matter
    const MergedRun merged = merge_shards(shards);
    EXPECT_TRUE(merged.warnings.empty()) << count << " shards: " << merged.warnings.front();
    const RunResult& run = merged.run;
    EXPECT_EQ(ids(run.scenarios), expected) << count << " shards";
    for (std::size_t k = 0; k < all.size(); ++k)
      EXPECT_EQ(run.scenarios[k].step_times_s, measured(all[k], k).step_times_s) << run.scenarios[k].id;
    EXPECT_EQ(run.matrix_digest, scenarios_digest(all));
    EXPECT_EQ(run.baseline_id, scenario_id(all.front()));
    EXPECT_EQ(run.run_id, "run-0-merged");
    EXPECT_FALSE(run.provenance.shard);
    ASSERT_TRUE(run.provenance.merge);
    EXPECT_EQ(run.provenance.merge->count, count);
    EXPECT_EQ(run.provenance.merge->shards.size(), static_cast<std::size_t>(count));
    EXPECT_EQ(run.provenance.merge->shards[0].location, "results/shard-0");
    ASSERT_TRUE(run.summary.has_value());
    // Two workloads (mlp, cnn), each against its own scenario at the baseline's settings.
    EXPECT_EQ(run.summary->compared, static_cast<int>(all.size()) - 2);
    ASSERT_EQ(run.summary->workloads.size(), 2u);
    for (const auto& s : run.scenarios) {
      ASSERT_TRUE(s.comparison.has_value()) << s.id;
      const ScenarioResult* reference = workload_baseline(run, workload_of(s.params));
      ASSERT_NE(reference, nullptr) << s.id;
      EXPECT_EQ(s.comparison->baseline_id, reference->id);
      EXPECT_EQ(workload_of(reference->params), workload_of(s.params));
    }
  }
}

TEST(Merge, ScenariosOfAnotherShardAreNotPairedWithTheBaseline) {
  const auto all = full_matrix();
  // Two shards: some scenarios share their workload baseline's shard, others do not.
  const RunResult run = merge_shards(shards_of(all, 2), {.run_id = "merged"}).run;
  EXPECT_EQ(run.run_id, "merged");
  const auto shard_of = [](const ScenarioResult& s) { return s.provenance.shard.value().index; };
  int other_shard = 0, same_shard = 0;
  for (const auto& s : run.scenarios) {
    const ScenarioResult* baseline = workload_baseline(run, workload_of(s.params));  // its workload's
    ASSERT_NE(baseline, nullptr);
    if (&s == baseline) continue;
    const bool same = shard_of(s) == shard_of(*baseline);
    (same ? same_shard : other_shard)++;
    const double scale = static_cast<double>(s.params.effective_batch) / baseline->params.effective_batch;
    const auto expected = step_time_speedup(*baseline, s, same);
    EXPECT_NEAR(s.comparison->ci_low, expected.low * scale, 1e-12) << s.id;
    EXPECT_NEAR(s.comparison->ci_high, expected.high * scale, 1e-12) << s.id;
    // Pairing would have cancelled the shared drift: the merged interval must not claim it.
    if (!same) { EXPECT_NE(step_time_speedup(*baseline, s, true).low, expected.low) << s.id; }
  }
  EXPECT_GT(other_shard, 0);
  EXPECT_GT(same_shard, 0);
}

TEST(Merge, BadShardSetsAreRefusedNamingTheFolderAndField) {
  const auto all = full_matrix();
  struct Case {
    const char* name;
    std::function<void(std::vector<ShardResults>&)> spoil;
    const char* file;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      {"not a shard", [](auto& s) { s[1].run.provenance.shard.reset(); }, "results/shard-1", "provenance.shard",
       "not started with --shard"},
      {"another matrix", [](auto& s) { s[2].run.provenance.shard->matrix_digest = "00000000000000ff"; },
       "results/shard-2", "provenance.shard.matrix_digest", "another matrix"},
      {"another shard count",
       [&](auto& s) {
         s[1].run.provenance.shard = shard_record({1, 4}, all);
       },
       "results/shard-1", "provenance.shard.count", "different shard counts"},
      {"a shard twice",
       [](auto& s) {
         s.push_back({"elsewhere/shard-1", s[1].run});
       },
       "elsewhere/shard-1", "provenance.shard.index", "given twice: also results/shard-1"},
      {"a missing shard", [](auto& s) { s.erase(s.begin() + 1); }, "command line", "DIR", "shard 1/3 missing"},
      {"two missing shards", [](auto& s) { s.erase(s.begin() + 1, s.end()); }, "command line", "DIR",
       "shards 1/3, 2/3 missing"},
      {"another baseline", [](auto& s) { s[2].run.baseline_id = "cnn/fp32/w0/a1/b32"; }, "results/shard-2",
       "baseline_id", "results/shard-0 has"},
      {"nothing", [](auto& s) { s.clear(); }, "command line", "DIR", "no shard results"},
      {"a position twice",
       [](auto& s) {
         mark_shard(s[2].run.scenarios.front(), {2, 3}, *matrix_position(s[0].run.scenarios.front()));
       },
       "results/shard-2", "scenarios", "matrix position"},
  };
  for (const auto& c : cases) {
    auto shards = shards_of(all, 3);
    c.spoil(shards);
    try {
      merge_shards(shards);
      ADD_FAILURE() << c.name << ": merged";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), c.file) << c.name << ": " << e.what();
      EXPECT_EQ(e.field(), c.field) << c.name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.name << ": " << e.what();
    }
  }
}

TEST(Merge, MissingShardsMergeWhenAllowedAndAreRecorded) {
  const auto all = full_matrix();
  auto shards = shards_of(all, 3);
  const auto dropped = ids(shards[1].run.scenarios);
  shards.erase(shards.begin() + 1);
  const MergedRun merged = merge_shards(shards, {.allow_missing_shards = true});
  ASSERT_EQ(merged.warnings.size(), 1u);
  EXPECT_NE(merged.warnings[0].find("shard 1/3 missing"), std::string::npos) << merged.warnings[0];
  ASSERT_TRUE(merged.run.provenance.merge);
  EXPECT_EQ(merged.run.provenance.merge->missing, std::vector<int>{1});
  EXPECT_EQ(merged.run.scenarios.size(), all.size() - dropped.size());
  for (const auto& id : dropped) EXPECT_EQ(find_scenario(merged.run, id), nullptr) << id;
}

TEST(Merge, AShardMissingScenariosMergesWithAWarning) {
  const auto all = full_matrix();
  auto shards = shards_of(all, 2);
  shards[1].run.scenarios.pop_back();  // e.g. a results.json saved before the shard's end
  const MergedRun merged = merge_shards(shards);
  ASSERT_EQ(merged.warnings.size(), 1u);
  EXPECT_EQ(merged.warnings[0], "the shards hold 6 scenarios, the matrix has 7");
  EXPECT_EQ(merged.run.scenarios.size(), all.size() - 1);
}

TEST(Merge, MixedEnvironmentsAreRefusedUnlessAllowed) {
  const auto all = full_matrix();
  struct Case {
    const char* field;
    std::function<void(nlohmann::json&)> change;
  };
  const Case cases[] = {
      {"cpu.model", [](auto& env) { env["cpu"]["model"] = "Other CPU 1"; }},
      {"device", [](auto& env) { env["device"] = "cuda"; }},
      {"gpu",
       [](auto& env) {
         env["gpu"] = nlohmann::json::array({{{"name", "NVIDIA H200"}}});
       }},
      {"torch", [](auto& env) { env["torch"] = "2.10.0"; }},
      {"git_revision", [](auto& env) { env["git_revision"] = "fedcba9876543210"; }},
  };
  for (const auto& c : cases) {
    auto shards = shards_of(all, 2);
    c.change(shards[1].run.environment);
    try {
      merge_shards(shards);
      ADD_FAILURE() << c.field << ": merged";
    } catch (const MixedEnvironments& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("results/shard-1: environment", 0), 0u) << what;
      EXPECT_NE(what.find("--allow-mixed-environments"), std::string::npos) << what;
      ASSERT_EQ(e.differences().size(), 1u) << what;
      EXPECT_EQ(e.differences()[0].rfind(c.field, 0), 0u) << e.differences()[0];
    }
    const MergedRun merged = merge_shards(shards, {.allow_mixed_environments = true});
    ASSERT_EQ(merged.warnings.size(), 1u) << c.field;
    EXPECT_NE(merged.warnings[0].find(c.field), std::string::npos) << merged.warnings[0];
    ASSERT_TRUE(merged.run.provenance.merge);
    const auto& recorded = merged.run.provenance.merge->environment_differences;
    ASSERT_EQ(recorded.size(), 1u) << c.field;
    EXPECT_EQ(recorded[0].rfind(std::string("1/2: ") + c.field, 0), 0u) << recorded[0];
    EXPECT_EQ(merged.run.scenarios.size(), all.size());
  }
}

TEST(Merge, PeaksOfEveryShardOncePerDeviceAndPrecision) {
  auto shards = shards_of(full_matrix(), 2);
  const auto peak = [](const char* precision, double flops_per_s) {
    PeakEntry entry{"cpu", precision, {}};
    entry.peak.flops_per_s = flops_per_s;
    return entry;
  };
  shards[0].run.peaks = std::vector<PeakEntry>{peak("fp32", 1.0)};
  shards[1].run.peaks = std::vector<PeakEntry>{peak("fp32", 2.0), peak("amp_bf16", 3.0)};
  const RunResult run = merge_shards(shards).run;
  ASSERT_TRUE(run.peaks);
  EXPECT_EQ(nlohmann::json(*run.peaks),
            nlohmann::json(std::vector<PeakEntry>{peak("fp32", 1.0), peak("amp_bf16", 3.0)}));
}

TEST(Merge, EnvironmentsOfOtherHostsOfOneKindAreOneEnvironment) {
  nlohmann::json a = {{"hostname", "node1"}, {"started_at", "2026-01-01T00:00:00Z"}, {"cpu", {{"model", "X"}}}};
  nlohmann::json b = a;
  b["hostname"] = "node2";
  b["started_at"] = "2026-01-01T00:05:00Z";
  EXPECT_TRUE(mixed_environment_differences(a, b).empty());
  b["cpu"]["threads_used"] = 8;
  EXPECT_EQ(mixed_environment_differences(a, b).size(), 1u);
}

}  // namespace
