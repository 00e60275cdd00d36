// `trainbench merge`: the results of the shards of one matrix (`run --shard i/n`,
// runner/shard.hpp), measured on several machines, as one run, as if the matrix had been run
// whole: the full matrix's order and digest, the baseline every shard recorded, comparisons
// and summary computed anew over all scenarios.
//
// Segments pair by round only within one shard (every scenario keeps its provenance.shard): a
// scenario of another shard is set against the baseline as an independent measurement (Welch),
// like a scenario of another run, so a merged run's intervals are wider than those of scenarios
// that shared the baseline's shard.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/results/results.hpp>

namespace tb {

// One shard's results and where they came from (named in every error).
struct ShardResults {
  std::string location;  // the folder or results.json the user named
  RunResult run;
};

struct MergeOptions {
  bool allow_mixed_environments = false;  // merge shards from different environments anyway
  bool allow_missing_shards = false;      // merge fewer than all n shards
  std::string run_id;                     // the merged run's id ("" : the lowest shard's + "-merged")
};

// Environments whose numbers cannot be set side by side: hardware (environment_differences:
// CPU model, device, GPU names and count) and what runs on it (torch, CUDA runtime, cuDNN,
// trainbench's build type and git revision, intra-op threads). Host names are allowed to differ:
// that is the point of sharding.
std::vector<std::string> mixed_environment_differences(const nlohmann::json& a, const nlohmann::json& b);

// Raised by merge_shards when two shards come from different environments.
class MixedEnvironments : public std::runtime_error {
 public:
  MixedEnvironments(const std::string& location, const std::string& reference,
                    const std::vector<std::string>& differences);
  const std::vector<std::string>& differences() const noexcept { return differences_; }

 private:
  std::vector<std::string> differences_;
};

struct MergedRun {
  RunResult run;
  // What was merged anyway: missing shards, differing environments (when allowed), a scenario
  // count that does not add up to the matrix's.
  std::vector<std::string> warnings;
};

// Merges `shards` (any order). InputError naming the shard's location and field when one is not
// a shard run (no provenance.shard), when two are not shards of the same matrix (full-matrix digest,
// shard count, baseline), when a shard is given twice or a scenario's matrix position is taken
// twice, and when a shard is missing (unless allow_missing_shards; then a warning, and
// provenance.merge.missing lists them). MixedEnvironments unless allow_mixed_environments.
//
// The merged run: the lowest shard's matrix name and file, environment, run capacity, extra
// sections and provenance.ranks and .isolated (not its shard, resume and A/B session: they
// describe one shard's run); the peaks of every shard, one per device and precision; the full
// matrix's digest; the shared baseline_id; the scenarios in full-matrix order
// (provenance.shard.position; shard by shard where a scenario has none); provenance.merge =
// {count, shards: [{index, location, run_id, hostname, started_at}], missing,
// environment_differences}; then annotate_run.
MergedRun merge_shards(std::vector<ShardResults> shards, const MergeOptions& options = {});

}  // namespace tb
