// Where a run's and a scenario's numbers came from: which shard of a matrix measured them,
// which pass (the run or its n-th resume), which side of an A/B session, which shards a merged
// run holds, how many ranks ran them. Comparisons read it to decide whether two scenarios were
// measured together (their segments then pair by round), `merge` to put shards back together,
// `run --resume` to refuse a merged run. In results.json it is the "provenance" object of the
// run and of every scenario (schema/results.schema.json).
//
// Reading is strict, unlike the sections' (sections.hpp): provenance decides which statistics
// apply, so a field of the wrong type refuses the file by its path
// ("provenance.shard.index: must be an integer ..."). What is missing takes the default below;
// the shard record's range is checked where a shard is needed (runner/shard.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

// Shard `index` (0-based, as SLURM_ARRAY_TASK_ID and a CI matrix index usually are) of `count`.
struct Shard {
  int index = 0;
  int count = 1;
  bool operator==(const Shard&) const = default;
};

// run provenance.shard: this run measured one shard of its matrix. matrix_digest and scenarios
// are the FULL matrix's (the run's own matrix_digest is that of its shard's scenarios).
// Read back from a file, an absent index is -1 and an absent count 0: out of range, so
// recorded_shard (runner/shard.hpp) names them.
struct ShardRecord {
  Shard shard;
  std::string matrix_digest;  // scenarios_digest of the full matrix
  std::size_t scenarios = 0;  // scenarios in the full matrix
  bool operator==(const ShardRecord&) const = default;
};

// run provenance.resume: the run was finished by `run --resume`.
struct ResumeProvenance {
  int count = 0;                         // resumes so far; the last one is pass `count`
  std::string resumed_at;                // UTC ISO 8601, of the last one
  std::vector<std::string> rerun;        // scenario ids the last one measured again
  bool forced = false;                   // --force over a changed matrix or hardware
  std::vector<std::string> forced_over;  // what had changed (resume_check.hpp)
  bool operator==(const ResumeProvenance&) const = default;
};

// One scenario's verdict on the NEW side of a judged `ab` session: its step time NEW/OLD (the
// reciprocal of compare's speedup OLD/NEW) with the paired 95% interval over rounds (valid false:
// too few rounds). Measured side by side, so the machine's drift between sessions is not in it:
// what `history --changes --metric paired_ratio` follows across commits.
struct PairedRatio {
  std::string scenario;  // the scenario id
  double ratio = 1, low = 1, high = 1;
  bool valid = false;
  bool operator==(const PairedRatio&) const = default;
};

// run provenance.ab_session: this run is one side of `trainbench ab`.
struct AbSessionProvenance {
  std::string id;
  std::string side;                       // old | new
  std::optional<std::int64_t> processes;  // worker processes whose parts make this side
  std::string reference;                  // NEW side, judged: what OLD was (its program)
  std::vector<PairedRatio> paired;        // NEW side, judged: one per compared scenario
  bool operator==(const AbSessionProvenance&) const = default;
};

// One shard a merged run holds.
struct MergedShard {
  int index = 0;
  std::string location;  // the folder or results.json named to `merge`
  std::string run_id, hostname, started_at;
  bool operator==(const MergedShard&) const = default;
};

// run provenance.merge: this run is the shards of one matrix put together by `trainbench merge`.
struct MergeProvenance {
  int count = 0;  // shards of the matrix
  std::vector<MergedShard> shards;
  std::vector<int> missing;                          // --allow-missing-shards
  std::vector<std::string> environment_differences;  // --allow-mixed-environments, "i/n: what"
  bool operator==(const MergeProvenance&) const = default;
};

// run provenance.ranks: a data-parallel run, its ranks and what started them.
struct RanksProvenance {
  int world_size = 1;
  int local_world_size = 1;  // ranks per node
  std::string launcher;      // trainbench | torchrun | slurm | test | none
  bool operator==(const RanksProvenance&) const = default;
};

struct RunProvenance {
  std::optional<ShardRecord> shard;
  std::optional<ResumeProvenance> resume;
  std::optional<AbSessionProvenance> ab_session;
  std::optional<MergeProvenance> merge;
  std::optional<RanksProvenance> ranks;
  bool isolated = false;  // --isolate: every scenario in its own worker process
  // The pass a scenario measured now belongs to: 0 for the run itself, n for its n-th resume.
  int pass() const { return resume ? resume->count : 0; }
  bool operator==(const RunProvenance&) const = default;
};

// scenario provenance.shard: measured by shard `index`, at `position` in the full matrix
// (merge restores the matrix order from it).
struct ScenarioShard {
  int index = 0;
  std::size_t position = 0;
  bool operator==(const ScenarioShard&) const = default;
};

struct ScenarioProvenance {
  std::optional<ScenarioShard> shard;  // absent: the run was not sharded
  int measured_in_resume = 0;          // 0: measured by the run itself; n: by its n-th resume
  bool operator==(const ScenarioProvenance&) const = default;
};

// Whether two scenarios of one run were interleaved in one session, round by round: measured by
// the same shard of the matrix and in the same pass. Only then do their segments pair by round
// (measure/comparison.cpp); otherwise they are independent measurements.
bool measured_together(const ScenarioProvenance& a, const ScenarioProvenance& b);

void to_json(nlohmann::json& j, const ShardRecord& s);
void from_json(const nlohmann::json& j, ShardRecord& s);
void to_json(nlohmann::json& j, const ResumeProvenance& s);
void from_json(const nlohmann::json& j, ResumeProvenance& s);
void to_json(nlohmann::json& j, const AbSessionProvenance& s);
void from_json(const nlohmann::json& j, AbSessionProvenance& s);
void to_json(nlohmann::json& j, const MergedShard& s);
void from_json(const nlohmann::json& j, MergedShard& s);
void to_json(nlohmann::json& j, const MergeProvenance& s);
void from_json(const nlohmann::json& j, MergeProvenance& s);
void to_json(nlohmann::json& j, const RanksProvenance& s);
void from_json(const nlohmann::json& j, RanksProvenance& s);
void to_json(nlohmann::json& j, const RunProvenance& s);
void from_json(const nlohmann::json& j, RunProvenance& s);
void to_json(nlohmann::json& j, const ScenarioShard& s);
void from_json(const nlohmann::json& j, ScenarioShard& s);
void to_json(nlohmann::json& j, const ScenarioProvenance& s);
void from_json(const nlohmann::json& j, ScenarioProvenance& s);

}  // namespace tb
