// Synthetic shard results for the merge tests: a small matrix, each scenario measured in
// drifting segments, and what `run --shard i/n` writes for each shard of it.
#pragma once
#include <string>
#include <vector>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/results/merge.hpp>
#include <trainbench/runner/shard.hpp>
#include "tests/helpers/synthetic_runs.hpp"

namespace tb::testing {

// 7 scenarios: mlp and cnn in three precisions at batch 32, and mlp at batch 64.
inline std::vector<ScenarioParams> full_matrix() {
  std::vector<ScenarioParams> all;
  for (const char* model : {"mlp", "cnn"})
    for (const auto precision : {Precision::fp32, Precision::tf32, Precision::amp_bf16}) {
      ScenarioParams p;
      p.model = model;
      p.precision = precision;
      all.push_back(p);
    }
  ScenarioParams big;
  big.batch = big.effective_batch = 64;
  all.push_back(big);
  return all;
}

// Scenario k of the matrix as measured: 6 segments drifting upwards (a machine heating up),
// each scenario at its own speed.
inline ScenarioResult measured(const ScenarioParams& p, std::size_t k) {
  const double base = 0.010 * (1.0 + 0.15 * static_cast<double>(k));
  std::vector<double> medians;
  for (int round = 0; round < 6; ++round) medians.push_back(base * (1.0 + 0.03 * round));
  ScenarioResult s = make_segmented_scenario(p.model, p.precision, p.batch, medians, 10, 0.01, 11 * k + 1);
  s.params = p;
  s.id = scenario_id(p);
  return s;
}

// What `run --shard` writes for `shard` of `all`: its scenarios marked, the full matrix recorded,
// the baseline chosen over the full matrix, comparisons within the shard.
inline RunResult shard_run(const std::vector<ScenarioParams>& all, const Shard& shard) {
  RunResult run = make_run("run-" + std::to_string(shard.index), {});
  run.matrix_name = "m";
  run.environment["hostname"] = "node" + std::to_string(shard.index);  // different hosts are fine
  run.environment["torch"] = "2.11.0";
  const auto members = shard_members(all, shard);
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (!members[k]) continue;
    run.scenarios.push_back(measured(all[k], k));
    mark_shard(run.scenarios.back(), shard, k);
  }
  run.baseline_id = scenario_id(all.front());
  run.matrix_digest = scenarios_digest(shard_scenarios(all, shard));
  run.provenance.shard = shard_record(shard, all);
  annotate_run(run);
  return run;
}

inline std::vector<ShardResults> shards_of(const std::vector<ScenarioParams>& all, int count) {
  std::vector<ShardResults> shards;
  for (int i = 0; i < count; ++i) shards.push_back({"results/shard-" + std::to_string(i), shard_run(all, {i, count})});
  return shards;
}

}  // namespace tb::testing
