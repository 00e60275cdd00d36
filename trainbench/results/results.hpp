// The results of a run, as written to DIR/results.json (schema: schema/results.schema.json).
// Reporters, comparisons and the history render from these structs alone.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/scenario.hpp>

namespace tb {

inline constexpr int kResultsSchemaVersion = 1;

// Summary of a sample of durations (seconds) or rates.
struct Distribution {
  std::size_t n = 0;
  // For a segmented measurement `median` is the typical step time: the geometric mean of the
  // segment medians (segment_stats.hpp); median_all_steps is the plain median of every step.
  double median_all_steps = 0;
  double median = 0, mean = 0, stddev = 0, min = 0, max = 0;
  double p5 = 0, p25 = 0, p75 = 0, p95 = 0, p99 = 0;
  // 95% interval of the median that includes between-segment drift (segment_stats.hpp).
  // ci_method "segments" or "batch-means" when it exists; "none" (ci_low = ci_high = 0) when
  // there were too few replicates for any 95% interval: reports then print no interval.
  double ci_low = 0, ci_high = 0;
  std::string ci_method = "none";
  std::size_t ci_replicates = 0;  // segments (or blocks) behind the interval
  bool has_interval() const { return ci_method != "none" && ci_high > 0; }
};

// One segment of a scenario's measurement: the steps it ran in one round of the interleaved
// schedule.
struct Segment {
  int round = 0;          // 0-based round of the schedule
  int steps = 0;          // measured steps in it
  double median_s = 0;    // their median step time
  double started_s = 0;   // start, seconds since the run started
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

// diverged: the loss went non-finite or exploded (see divergence.hpp); its speed figures are
// kept but never enter speedups, summaries or comparisons.
// interrupted: the run was stopped (SIGINT/SIGTERM) before this scenario finished; the segments
// measured so far are kept as they were, and `run --resume` measures it again from the start.
// crashed: with `run --isolate`, the scenario's worker process died (a signal such as SIGSEGV or
// SIGABRT, or an unexpected exit); the message has how and the tail of its stderr
// (isolated_table.hpp). New values go at the end: results files store the name, but the order is
// the counters' order everywhere.
enum class ScenarioStatus { ok, skipped, failed, oom, diverged, interrupted, crashed };
inline constexpr int kScenarioStatusCount = 7;
const char* to_string(ScenarioStatus s);
ScenarioStatus parse_status(const std::string& s);

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
  // average, GPU clocks/throttling; "contended": true past the documented thresholds.
  nlohmann::json disturbance = nlohmann::json::object();
  bool contended() const { return disturbance.value("contended", false); }

  // Open sections filled by other components: "profile" (trace paths, CUPTI summaries),
  // "capacity" (FLOPs, MFU, projections), "loss_parity", ...
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
  std::string baseline_id;  // id of the baseline scenario ("" when none ran)
  nlohmann::json environment = nlohmann::json::object();  // manifest, see environment.hpp
  std::vector<ScenarioResult> scenarios;
  nlohmann::json extra = nlohmann::json::object();  // run-level sections (e.g. "capacity")
};

void to_json(nlohmann::json& j, const Distribution& d);
void from_json(const nlohmann::json& j, Distribution& d);
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

// Reads DIR/results.json or a path to a results file; InputError naming the file and field on
// malformed input or an unsupported schema version.
RunResult load_results(const std::string& path);
// Replaces `path` durably (see durable_file.hpp): the previous file survives any failure, which
// is an OutputError.
void save_results(const RunResult& run, const std::string& path);

// The scenario with the given id, or nullptr.
const ScenarioResult* find_scenario(const RunResult& run, const std::string& id);

}  // namespace tb
