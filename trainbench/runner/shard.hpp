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

// What a shard run records as run.provenance.shard (Shard and ShardRecord are
// results/provenance.hpp's): the matrix digest and scenario count of the FULL matrix `all` (the
// run's own matrix_digest is that of its shard, so that `compare --against last` finds the same
// shard of an earlier run).
ShardRecord shard_record(const Shard& shard, const std::vector<ScenarioParams>& all);

// The record of a shard run; nullopt for a run without provenance.shard. InputError naming
// `where` (the results file) and the field when the record is out of range.
std::optional<ShardRecord> recorded_shard(const RunResult& run, const std::string& where);

// Marks a scenario result as measured by `shard`: provenance.shard = {index, position}, position
// being its 0-based place in the full matrix (merge restores the matrix order from it). Segments
// of two scenarios pair by round only when both were measured by the same shard
// (measured_together, provenance.hpp).
void mark_shard(ScenarioResult& scenario, const Shard& shard, std::size_t position);
// The provenance.shard.position of a scenario, nullopt when it has none.
std::optional<std::size_t> matrix_position(const ScenarioResult& scenario);

}  // namespace tb
