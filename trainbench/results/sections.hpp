// The built-in sections of results.json that components add after measuring: each a typed
// struct with its JSON form defined once (sections.cpp, and the measuring component's own for
// energy, flops and peaks), so writers fill fields and reporters read fields; no component
// spells another's keys. In the file they sit under "extra" by name
// (schema/results.schema.json); ScenarioResult::extra and RunResult::extra keep only what no
// built-in section claims (a user's own sections). Where the numbers came from (shard, resume,
// A/B session, merge, ranks) is not a section but provenance (provenance.hpp).
//
// Reading is lenient on purpose: a section edited by hand or from an older trainbench reads
// as far as it is well-formed (a missing or mistyped field takes its default, a section that
// is not an object is absent), so every reporter renders partial results the same way ("-").
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/capacity/flops.hpp>
#include <trainbench/capacity/peak_result.hpp>
#include <trainbench/capacity/probe.hpp>
#include <trainbench/capacity/projection.hpp>
#include <trainbench/capacity/scaling_projection.hpp>
#include <trainbench/results/scenario_status.hpp>

namespace tb {

// extra.comparison: this scenario against the run's baseline (measure/comparison.cpp).
struct ComparisonSection {
  std::string baseline_id;
  double speedup = 0, ci_low = 0, ci_high = 0;
  bool ci_valid = true;  // false: too few segments for a 95% interval
  std::string verdict;   // faster | slower | same | noisy | baseline
};

// extra.loss_parity: a reduced-precision scenario's loss curve against its fp32 twin.
struct LossParitySection {
  std::string reference_id;
  double rel_drift = 0, tolerance = 0;
  bool ok = true;
  std::int64_t steps_compared = 0;
};
// Whether a scenario's loss drifted past its tolerance (no check: no drift).
inline bool loss_drifted(const std::optional<LossParitySection>& lp) { return lp && !lp->ok; }

// extra.python_loop: a scenario measured in the user's Python loop (docs/python-loop.md), by a
// worker process with its own interpreter and torch.
struct PythonLoopSection {
  std::string python_version, torch_version;  // the worker's
  std::string mode;                           // "components" (trainbench runs the step) or "custom"
  std::string log;                            // the worker's stderr, relative to the results folder
  double build_s = 0;                         // the user's function: model, optimizer, data
  std::int64_t parameters = 0;                // the model's (components mode)
  // torch.compile: the first step, which compiles, timed alone and never measured; and how many
  // times the model was compiled again after it.
  std::optional<double> first_step_s;
  std::optional<std::int64_t> recompiles;
};

// extra.profile: the profiling pass of one scenario (profiling/torch/profile_pass.cpp).
struct ProfileSection {
  std::map<std::string, std::string> traces;  // kind (host, kineto) -> path relative to the results dir
  std::optional<std::int64_t> window_steps;
  std::optional<double> window_step_time_s;  // median of the profiled steps
  std::optional<double> overhead_vs_timed;   // window step time / timed median - 1
  std::optional<std::int64_t> dropped_host_spans;
  std::string cupti_skipped;  // why CUPTI was asked for and not run, else ""
  nlohmann::json cupti;       // profile_summary.hpp's summary; null when not collected
  // The window's memory over time (measure/memory_timeline.hpp's memory_timeline_json); null
  // when no host-trace window ran.
  nlohmann::json memory_timeline;
};

// extra.capacity of a scenario: FLOPs, MFU and the optional time-to-train projection
// (capacity/utilization.hpp fills it).
struct ScenarioCapacitySection {
  std::optional<capacity::FlopCount> flops_per_sample;
  double achieved_flops_per_s = 0;
  double peak_flops_per_s = 0;  // 0: no peak known, and then no MFU
  std::string peak_source, peak_detail;
  double mfu = 0;
  // Why the MFU is not a utilisation (above 100%), else "". A file without this field gets the
  // same explanation when it is read.
  std::string mfu_error;
  std::optional<capacity::Projection> projection;
};

// One rank of a data-parallel scenario, as rank 0 gathered it.
struct RankTiming {
  int rank = 0;
  std::string host;
  double median_step_s = 0;  // this rank's median step
  double samples_per_s = 0;  // its own samples (per-rank batch) over its median step
  // Its median step less its exposed communication: the work it did before waiting on the
  // collective. The slowest rank's compute is what every rank waits for (the straggler view).
  double compute_s = 0;
  double exposed_comm_s = 0;  // median per step
};

// extra.data_parallel: a scenario trained on world_size ranks through c10d's Reducer
// (training/torch/data_parallel.hpp). Times are medians per optimizer step on rank 0 unless
// `ranks` says otherwise.
struct DataParallelSection {
  std::string backend;  // gloo | nccl
  int world_size = 1;
  std::string scaling;            // weak | strong
  std::int64_t global_batch = 0;  // samples per optimizer step over every rank
  double bucket_mb = 0;
  std::int64_t buckets = 0;
  std::int64_t gradient_bytes = 0;
  // From the end of backward's compute (the last bucket handed to the collective) until every
  // bucket is reduced and written back: the communication the step waits for.
  double exposed_comm_s = 0;
  // All-reduce time that ran while backward was still computing (summed bucket time less the
  // exposed part): hidden, not free, as it competes for cores and memory bandwidth.
  double overlapped_comm_s = 0;
  // One all-reduce of the gradient's size, measured on the spot before the timed steps, and its
  // bandwidths by nccl-tests' formulas (algbw = bytes / time, busbw = algbw * 2(n-1)/n).
  double allreduce_s = 0, algbw_bytes_per_s = 0, busbw_bytes_per_s = 0;
  double latency_s = 0;  // a 4-byte all-reduce: the communication model's fixed cost
  // Throughput over world size 1 of the same scenario, per rank: (global samples/s / n) / (the
  // single-process samples/s); set by the run's scaling analysis, absent without a reference.
  std::optional<double> efficiency;
  std::string efficiency_reference_id;
  std::vector<RankTiming> ranks;
};

// One batch-size search (capacity/batch_search.hpp) of a model at a precision.
struct BatchSearchEntry {
  std::string model, precision;
  std::int64_t max_batch = 0, best_batch = 0;  // 0: even the first probe did not fit
  double best_samples_per_s = 0;
  bool hit_limit = false;               // the search limit fit, so the true maximum may be larger
  std::vector<capacity::Probe> probes;  // in the order taken
};

// One linear memory fit (capacity/memory_fit.hpp) of a model at a precision.
struct MemoryFitEntry {
  std::string model, precision;
  double fixed_bytes = 0, per_sample_bytes = 0;
  std::optional<double> r2;
  std::int64_t points = 0;
  std::optional<std::int64_t> memory_bytes;  // the limit it predicted for, if recorded
  std::int64_t predicted_max_batch = 0;
};

// run extra.capacity: what `trainbench capacity` found (capacity/torch/capacity_search.cpp).
struct RunCapacitySection {
  std::int64_t memory_limit_bytes = 0;  // 0 when unknown
  std::string limit_source;
  std::vector<BatchSearchEntry> batch_search;
  std::vector<MemoryFitEntry> memory_fit;
};

// One measured scenario of a scaling series (measure/scaling.hpp).
struct ScalingMember {
  std::string id;
  int world_size = 1;
  bool reducer_alone = false;  // world size 1 through the reducer (DDP's own overhead)
  double median_step_s = 0;
  double samples_per_s = 0;           // global
  double per_rank_samples_per_s = 0;  // samples_per_s / world_size
  std::optional<double> efficiency;   // against the series' reference
};

// The model's step time at a measured size against the measured one.
struct ScalingCheck {
  std::string id;
  int world_size = 1;
  double measured_step_s = 0, projected_step_s = 0;
  double relative_error = 0;       // projected / measured - 1
  bool calibration_point = false;  // the model was calibrated on this very scenario
  std::string note;
};

// The projection of a series past its measured sizes: a model, labelled as one.
struct ScalingModelSection {
  std::string label = "projected (model)";
  std::string calibrated_on;      // the scenario id whose measurements set the parameters
  std::string backend, topology;  // where the bandwidth came from, e.g. "gloo over loopback, one node"
  capacity::StepModel parameters;
  bool overlap_lower_bound = false;  // exposed was ~0 there: backward could have hidden more
  std::string compute_assumption;
  std::string efficiency_reference;  // what projected efficiencies divide by
  std::vector<std::string> limits;
  std::vector<capacity::ProjectedPoint> points;
  std::vector<ScalingCheck> checks;  // one per measured size > 1
};

// Scenarios that differ only in world size (strong scaling: at the same global batch).
struct ScalingSeries {
  std::string label;              // the scenario id without the world size (strong: and per-rank batch)
  std::string scaling;            // weak | strong
  std::int64_t global_batch = 0;  // strong scaling's fixed global batch; 0 for weak
  std::string reference_id;       // world size 1 without the reducer, ok; "" when none
  double reference_samples_per_s = 0;
  std::string reducer_alone_id;
  // 1 - throughput(world size 1 through the reducer) / throughput(world size 1 without).
  std::optional<double> ddp_overhead;
  std::vector<ScalingMember> members;  // ascending world size, the reducer-alone one after the reference
  std::optional<ScalingModelSection> model;
  std::string note;  // why something is missing (no reference, nothing to calibrate on)
};

// run extra.scaling: the run's scaling analysis (measure/scaling.hpp).
struct ScalingSection {
  std::vector<ScalingSeries> series;
};

// extra.dataset: the dataset as the scenario ran it (a rank's: its shard).
struct DatasetSection {
  std::int64_t samples = 0;
};

// One entry of run extra.peaks: the matmul peak measured for a device and precision, the
// denominator of the MFU of its scenarios (capacity/torch/utilization_pass.hpp).
struct PeakEntry {
  std::string device, precision;
  capacity::PeakResult peak;
  bool same_target(const PeakEntry& other) const { return device == other.device && precision == other.precision; }
};

// The geometric mean of the compared scenarios' speedups over their workload's baseline.
struct GeomeanSpeedup {
  double speedup = 0, ci_low = 0, ci_high = 0;
  bool ci_valid = true;
};

// One workload of a run with several (extra.summary.workloads[]): the scenario its speed-ups are
// measured against and their geometric mean.
struct WorkloadSummary {
  std::string workload;                   // workload_of (matrix/axis.hpp): "resnet50", "mlp@synthetic"
  std::string baseline_id;                // its scenario with the baseline's settings; "" when it has none
  int compared = 0;                       // its scenarios with a speed-up, the baseline aside
  std::optional<GeomeanSpeedup> geomean;  // absent without a baseline
};

// run extra.summary: scenarios by status, and the geometric-mean speedup of the baseline's
// workload; with several workloads, each workload's in `workloads` (a geomean over different
// models would mix questions).
struct SummarySection {
  std::array<int, kScenarioStatusCount> by_status{};  // indexed by ScenarioStatus
  int contended = 0, compared = 0;                    // compared: over every workload
  std::optional<GeomeanSpeedup> geomean;
  std::vector<WorkloadSummary> workloads;  // empty for a run of one workload
  int count(ScenarioStatus s) const { return by_status[static_cast<int>(s)]; }
};

void to_json(nlohmann::json& j, const ComparisonSection& s);
void from_json(const nlohmann::json& j, ComparisonSection& s);
void to_json(nlohmann::json& j, const PythonLoopSection& s);
void from_json(const nlohmann::json& j, PythonLoopSection& s);
void to_json(nlohmann::json& j, const LossParitySection& s);
void from_json(const nlohmann::json& j, LossParitySection& s);
void to_json(nlohmann::json& j, const ProfileSection& s);
void from_json(const nlohmann::json& j, ProfileSection& s);
void to_json(nlohmann::json& j, const ScenarioCapacitySection& s);
void from_json(const nlohmann::json& j, ScenarioCapacitySection& s);
void to_json(nlohmann::json& j, const RankTiming& s);
void from_json(const nlohmann::json& j, RankTiming& s);
void to_json(nlohmann::json& j, const DataParallelSection& s);
void from_json(const nlohmann::json& j, DataParallelSection& s);
void to_json(nlohmann::json& j, const BatchSearchEntry& s);
void from_json(const nlohmann::json& j, BatchSearchEntry& s);
void to_json(nlohmann::json& j, const MemoryFitEntry& s);
void from_json(const nlohmann::json& j, MemoryFitEntry& s);
void to_json(nlohmann::json& j, const RunCapacitySection& s);
void from_json(const nlohmann::json& j, RunCapacitySection& s);
void to_json(nlohmann::json& j, const WorkloadSummary& s);
void from_json(const nlohmann::json& j, WorkloadSummary& s);
void to_json(nlohmann::json& j, const SummarySection& s);
void from_json(const nlohmann::json& j, SummarySection& s);
void to_json(nlohmann::json& j, const ScalingMember& s);
void from_json(const nlohmann::json& j, ScalingMember& s);
void to_json(nlohmann::json& j, const ScalingCheck& s);
void from_json(const nlohmann::json& j, ScalingCheck& s);
void to_json(nlohmann::json& j, const ScalingModelSection& s);
void from_json(const nlohmann::json& j, ScalingModelSection& s);
void to_json(nlohmann::json& j, const ScalingSeries& s);
void from_json(const nlohmann::json& j, ScalingSeries& s);
void to_json(nlohmann::json& j, const ScalingSection& s);
void from_json(const nlohmann::json& j, ScalingSection& s);
void to_json(nlohmann::json& j, const DatasetSection& s);
void from_json(const nlohmann::json& j, DatasetSection& s);
void to_json(nlohmann::json& j, const PeakEntry& s);
void from_json(const nlohmann::json& j, PeakEntry& s);

// Where each built-in section sits: ScenarioResult's and RunResult's to_json/from_json move a
// section between its typed member and extra[key] with these.
template <typename Section>
void write_section(nlohmann::json& extra, const char* key, const std::optional<Section>& section) {
  if (section) extra[key] = *section;
}
template <typename Section>
void read_section(nlohmann::json& extra, const char* key, std::optional<Section>& section) {
  if (!extra.is_object()) return;
  const auto it = extra.find(key);
  if (it == extra.end()) return;
  if (it->is_object()) section = it->template get<Section>();
  extra.erase(it);  // owned by the typed member from here on
}
// A section that is a list of entries (extra.peaks): its object entries, the others skipped.
template <typename Entry>
void read_section(nlohmann::json& extra, const char* key, std::optional<std::vector<Entry>>& section) {
  if (!extra.is_object()) return;
  const auto it = extra.find(key);
  if (it == extra.end()) return;
  if (it->is_array()) {
    section.emplace();
    for (const auto& e : *it)
      if (e.is_object()) section->push_back(e.template get<Entry>());
  }
  extra.erase(it);
}

}  // namespace tb
