// Sharded matrices: `trainbench run MATRIX --shard i/n` measures a deterministic 1/n of the
// matrix, so that n machines (a Slurm job array, a CI matrix) share it, and `trainbench merge`
// (results/merge.hpp) puts the n results back together.
//
// Which scenarios a shard gets: the scenarios are sorted by scenario id (ties, scenarios that
// differ only outside the axes, by the digest of their own parameters) and dealt out
// round-robin, the k-th to shard k mod n. So shards differ in size by one at most, and the
// choice does not depend on the order of the matrix file; it depends on the whole scenario
// list, which is why every shard records the full matrix's digest and merge insists on it.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/results/results.hpp>

namespace tb {

// Shard `index` (0-based, as SLURM_ARRAY_TASK_ID and a CI matrix index usually are) of `count`.
struct Shard {
  int index = 0;
  int count = 1;
  bool operator==(const Shard&) const = default;
};

inline constexpr int kMaxShards = 1000000;

// Parses "i/n" with 0 <= i < n <= kMaxShards, digits only; InputError("command line",
// "--shard", why) otherwise ("3/2", "x/2", "0/0", "1/", "-1/2").
Shard parse_shard(const std::string& text);
// "i/n".
std::string to_string(const Shard& shard);

// For each of `scenarios` (the full matrix, in its order): whether `shard` measures it.
std::vector<bool> shard_members(const std::vector<ScenarioParams>& scenarios, const Shard& shard);
// The scenarios `shard` measures, in matrix order.
std::vector<ScenarioParams> shard_scenarios(const std::vector<ScenarioParams>& scenarios, const Shard& shard);

// What a shard run records as run.extra.shard: {index, count, matrix_digest, scenarios}, the
// last two of the FULL matrix `all` (the run's own matrix_digest is that of its shard, so that
// `compare --against last` finds the same shard of an earlier run).
nlohmann::json shard_record(const Shard& shard, const std::vector<ScenarioParams>& all);

// run.extra.shard read back.
struct ShardRecord {
  Shard shard;
  std::string matrix_digest;  // scenarios_digest of the full matrix
  std::size_t scenarios = 0;  // scenarios in the full matrix
};
// The record of a shard run; nullopt for a run without extra.shard. InputError naming `where`
// (the results file) and the field when the record is malformed.
std::optional<ShardRecord> recorded_shard(const RunResult& run, const std::string& where);

// Marks a scenario result as measured by `shard`: extra.shard = {index, position}, position
// being its 0-based place in the full matrix (merge restores the matrix order from it). Segments
// of two scenarios pair by round only when both were measured by the same shard (comparison.cpp).
void mark_shard(ScenarioResult& scenario, const Shard& shard, std::size_t position);
// The extra.shard.position of a scenario, nullopt when it has none.
std::optional<std::size_t> matrix_position(const ScenarioResult& scenario);

}  // namespace tb
