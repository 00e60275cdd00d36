// The results of a run, as written to DIR/results.json (schema: schema/results.schema.json).
// Reporters, comparisons and the history render from these structs alone.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/capacity/flops.hpp>
#include <trainbench/matrix/scenario.hpp>
#include <trainbench/measure/distribution.hpp>
#include <trainbench/measure/energy_result.hpp>
#include <trainbench/measure/host_load.hpp>
#include <trainbench/results/provenance.hpp>
#include <trainbench/results/scenario_status.hpp>
#include <trainbench/results/sections.hpp>

namespace tb {

// 2: provenance (shard, resume, A/B session, merge, ranks) moved from "extra" into "provenance"
// objects of the run and of each scenario. Version 1 files still load (results_upgrade.hpp).
inline constexpr int kResultsSchemaVersion = 2;

// One segment of a scenario's measurement: the steps it ran in one round of the interleaved
// schedule.
struct Segment {
  int round = 0;         // 0-based round of the schedule
  int steps = 0;         // measured steps in it
  double median_s = 0;   // their median step time
  double started_s = 0;  // start, seconds since the run started
  // The measuring process's CPU seconds over the segment (the Python worker's for a Python
  // loop); absent in older results or where getrusage was unreadable.
  std::optional<double> cpu_s;
  // What else ran on the host over this segment (steal, other processes): a paired session judges
  // each round's two segments by it. Absent in older results or where /proc was unreadable.
  std::optional<SegmentLoad> load;
};

// Time spent in one phase of a training step, per optimizer step.
struct PhaseStat {
  std::string name;  // data_wait, h2d, forward, backward, optimizer
  double median_s = 0;
  double mean_s = 0;
  double share = 0;  // mean_s / sum of phase means
};

struct MemoryStats {
  std::int64_t peak_allocated_bytes = 0;  // CUDA caching allocator (GPU only)
  std::int64_t peak_reserved_bytes = 0;   // CUDA caching allocator (GPU only)
  std::int64_t alloc_retries = 0;         // CUDA caching allocator (GPU only)
  std::int64_t peak_rss_bytes = 0;        // process resident set during the scenario
};

struct ScenarioResult {
  std::string id;
  ScenarioParams params;
  ScenarioStatus status = ScenarioStatus::ok;
  std::string message;  // reason for skipped / failed / oom / diverged / crashed

  // Timing: one "step" is one optimizer step (= params.accumulation micro-batches).
  int warmup_steps = 0;  // unmeasured steps: the warm-up plus every later segment's re-warm
  int measured_steps = 0;
  // "converged": the interval reached steps.target_rel_ci; "rounds": every round ran without
  // reaching it; "no_interval": too few segments for any 95% interval; "in_progress": saved
  // between rounds, more segments to come; "interrupted": the run stopped before it finished.
  std::string stop_reason;
  bool converged = false;
  std::vector<double> step_times_s;  // every measured step, in order (segments concatenated)
  std::vector<Segment> segments;     // in round order
  Distribution step_time_s;
  double samples_per_s = 0;  // median-based: effective_batch / median step time
  double tokens_per_s = 0;   // language models only, else 0
  std::vector<PhaseStat> phases;

  // Training signal.
  std::vector<double> loss_curve;  // mean loss of each optimizer step (warm-up included)
  double loss_start = 0, loss_end = 0;
  std::int64_t skipped_steps = 0;  // optimizer steps skipped by the gradient scaler (inf/NaN)
  double final_loss_scale = 0;     // 0 when no scaler is used

  MemoryStats memory;
  double wall_s = 0;  // whole scenario, set-up included

  // What disturbed the measurement (host_load.hpp): other processes' CPU use, steal, load
  // average, GPU clocks/throttling; contended past the documented thresholds. Absent for a
  // scenario that measured nothing (written as {}).
  std::optional<Disturbance> disturbance;
  bool contended() const { return disturbance && disturbance->contended; }
  // Why contended (or why the meter was unavailable); "" when nothing was measured.
  std::string disturbance_reason() const { return disturbance ? disturbance->reason : std::string(); }

  ScenarioProvenance provenance;  // which shard and pass measured it (provenance.hpp)

  // Built-in sections (sections.hpp), absent until their component fills them; in
  // results.json they sit under "extra" by these names.
  std::optional<ComparisonSection> comparison;
  std::optional<LossParitySection> loss_parity;
  std::optional<PythonLoopSection> python_loop;
  std::optional<ProfileSection> profile;
  std::optional<ScenarioCapacitySection> capacity;
  std::optional<DataParallelSection> data_parallel;
  std::optional<EnergyResult> energy;  // measure/energy_result.hpp
  std::optional<DatasetSection> dataset;
  std::optional<capacity::FlopCount> flops_per_sample;  // the model's, counted per layer
  // Everything else under "extra": a user's own sections, kept as written.
  nlohmann::json extra = nlohmann::json::object();
};

struct RunResult {
  int schema_version = kResultsSchemaVersion;
  std::string run_id;
  std::string matrix_name;
  std::string matrix_file;
  // Digest of what the matrix measures (scenarios_digest): `compare --against last` only
  // compares runs of the same content, not just the same name.
  std::string matrix_digest;
  std::string baseline_id;                                // id of the baseline scenario ("" when none ran)
  nlohmann::json environment = nlohmann::json::object();  // manifest, see environment.hpp
  std::vector<ScenarioResult> scenarios;
  RunProvenance provenance;                     // shard, resume, A/B session, merge, ranks (provenance.hpp)
  std::optional<SummarySection> summary;        // extra.summary
  std::optional<RunCapacitySection> capacity;   // extra.capacity
  std::optional<ScalingSection> scaling;        // extra.scaling
  std::optional<std::vector<PeakEntry>> peaks;  // extra.peaks
  // Everything else under "extra": a user's own sections, kept as written.
  nlohmann::json extra = nlohmann::json::object();
};

void to_json(nlohmann::json& j, const Segment& s);
void from_json(const nlohmann::json& j, Segment& s);
void to_json(nlohmann::json& j, const PhaseStat& p);
void from_json(const nlohmann::json& j, PhaseStat& p);
void to_json(nlohmann::json& j, const MemoryStats& m);
void from_json(const nlohmann::json& j, MemoryStats& m);
void to_json(nlohmann::json& j, const ScenarioResult& r);
void from_json(const nlohmann::json& j, ScenarioResult& r);
void to_json(nlohmann::json& j, const RunResult& r);
void from_json(const nlohmann::json& j, RunResult& r);

// Reads DIR/results.json or a path to a results file, of this schema version or an earlier one
// (results_upgrade.hpp); InputError naming the file and field on malformed input or an
// unsupported schema version.
RunResult load_results(const std::string& path);
// Replaces `path` durably (see durable_file.hpp): the previous file survives any failure, which
// is an OutputError.
void save_results(const RunResult& run, const std::string& path);

// Device memory when the scenario ran on a GPU (the caching allocator's peak), else the
// process's resident set; 0 when neither was measured.
std::int64_t peak_memory_bytes(const ScenarioResult& s);

// The scenario with the given id, or nullptr.
const ScenarioResult* find_scenario(const RunResult& run, const std::string& id);

}  // namespace tb
