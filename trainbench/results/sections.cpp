#include <trainbench/results/sections.hpp>

#include <algorithm>
#include <limits>

#include <trainbench/capacity/utilization.hpp>
#include <trainbench/support/json_fields.hpp>

namespace tb {

namespace {

// The object entries of an array-valued key ({} and non-objects skipped).
template <typename T>
std::vector<T> entries(const nlohmann::json& parent, const char* key) {
  std::vector<T> out;
  if (!parent.is_object()) return out;
  const auto it = parent.find(key);
  if (it == parent.end() || !it->is_array()) return out;
  for (const auto& e : *it)
    if (e.is_object()) out.push_back(e.get<T>());
  return out;
}

int field_int(const nlohmann::json& j, const char* key) {
  return static_cast<int>(std::clamp<std::int64_t>(field_integer(j, key), std::numeric_limits<int>::min(),
                                                   std::numeric_limits<int>::max()));
}

// Counters are never negative nor beyond a billion, whatever a file says.
int field_count(const nlohmann::json& j, const char* key) {
  return static_cast<int>(std::clamp<std::int64_t>(field_integer(j, key), 0, 1'000'000'000));
}

// geomean_speedup, geomean_ci_low, geomean_ci_high, geomean_ci_valid: the summary's and each
// workload's.
void put_geomean(nlohmann::json& j, const std::optional<GeomeanSpeedup>& g) {
  if (!g) return;
  j["geomean_speedup"] = g->speedup;
  j["geomean_ci_low"] = g->ci_low;
  j["geomean_ci_high"] = g->ci_high;
  j["geomean_ci_valid"] = g->ci_valid;
}
std::optional<GeomeanSpeedup> geomean_from(const nlohmann::json& j) {
  const auto g = optional_number(j, "geomean_speedup");
  if (!g) return std::nullopt;
  GeomeanSpeedup geo;
  geo.speedup = *g;
  geo.ci_low = field_number(j, "geomean_ci_low", geo.speedup);
  geo.ci_high = field_number(j, "geomean_ci_high", geo.speedup);
  geo.ci_valid = field_flag(j, "geomean_ci_valid", true);
  return geo;
}

// Projections and probes are capacity's structs; here is how a section reads them leniently.
capacity::Projection projection_from(const nlohmann::json& p) {
  capacity::Projection v;
  v.target_samples = field_number(p, "target_samples");
  v.steps = field_integer(p, "steps");
  v.time_s = field_number(p, "time_s");
  v.ci_low_s = field_number(p, "ci_low_s", v.time_s);
  v.ci_high_s = field_number(p, "ci_high_s", v.time_s);
  v.device_hours = field_number(p, "device_hours");
  v.num_devices = std::max(1, field_int(p, "num_devices"));
  v.price_per_device_hour = optional_number(p, "price_per_device_hour");
  v.cost = optional_number(p, "cost");
  v.cost_ci_low = optional_number(p, "cost_ci_low");
  v.cost_ci_high = optional_number(p, "cost_ci_high");
  v.avg_power_watts = optional_number(p, "avg_power_watts");
  v.energy_joules = optional_number(p, "energy_joules");
  v.joules_per_step = optional_number(p, "joules_per_step");
  v.energy_basis = field_text(p, "energy_basis");
  v.energy_kwh = optional_number(p, "energy_kwh");
  v.price_per_kwh = optional_number(p, "price_per_kwh");
  v.energy_cost = optional_number(p, "energy_cost");
  return v;
}

capacity::Probe probe_from(const nlohmann::json& p) {
  capacity::Probe v;
  v.batch = field_int(p, "batch");
  v.fits = field_flag(p, "fits");
  v.samples_per_s = field_number(p, "samples_per_s");
  v.peak_bytes = field_integer(p, "peak_bytes");
  v.note = field_text(p, "note");
  return v;
}

nlohmann::json step_model_json(const capacity::StepModel& m) {
  return {{"scaling", m.strong ? "strong" : "weak"},
          {"calibrated_world_size", m.calibrated_world_size},
          {"calibrated_global_batch", m.calibrated_global_batch},
          {"compute_s", m.compute_s},
          {"gradient_bytes", m.gradient_bytes},
          {"overlap_s", m.overlap_s},
          {"alpha_s", m.comm.alpha_s},
          {"busbw_bytes_per_s", m.comm.busbw_bytes_per_s}};
}

capacity::StepModel step_model_from(const nlohmann::json& m) {
  capacity::StepModel v;
  v.strong = field_text(m, "scaling") == "strong";
  v.calibrated_world_size = std::max(1, field_int(m, "calibrated_world_size"));
  v.calibrated_global_batch = field_integer(m, "calibrated_global_batch");
  v.compute_s = field_number(m, "compute_s");
  v.gradient_bytes = field_number(m, "gradient_bytes");
  v.overlap_s = field_number(m, "overlap_s");
  v.comm.alpha_s = field_number(m, "alpha_s");
  v.comm.busbw_bytes_per_s = field_number(m, "busbw_bytes_per_s");
  return v;
}

nlohmann::json projected_point_json(const capacity::ProjectedPoint& p) {
  nlohmann::json j = {{"world_size", p.world_size},         {"global_batch", p.global_batch},
                      {"compute_s", p.compute_s},           {"allreduce_s", p.allreduce_s},
                      {"exposed_comm_s", p.exposed_comm_s}, {"step_s", p.step_s},
                      {"samples_per_s", p.samples_per_s}};
  put_optional(j, "efficiency", p.efficiency);
  return j;
}

capacity::ProjectedPoint projected_point_from(const nlohmann::json& p) {
  capacity::ProjectedPoint v;
  v.world_size = std::max(1, field_int(p, "world_size"));
  v.global_batch = field_number(p, "global_batch");
  v.compute_s = field_number(p, "compute_s");
  v.allreduce_s = field_number(p, "allreduce_s");
  v.exposed_comm_s = field_number(p, "exposed_comm_s");
  v.step_s = field_number(p, "step_s");
  v.samples_per_s = field_number(p, "samples_per_s");
  v.efficiency = optional_number(p, "efficiency");
  return v;
}

std::vector<std::string> texts(const nlohmann::json& parent, const char* key) {
  std::vector<std::string> out;
  if (const auto it = parent.find(key); it != parent.end() && it->is_array())
    for (const auto& e : *it)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

}  // namespace

void to_json(nlohmann::json& j, const ComparisonSection& s) {
  j = {{"baseline_id", s.baseline_id}, {"speedup", s.speedup},   {"ci_low", s.ci_low},
       {"ci_high", s.ci_high},         {"ci_valid", s.ci_valid}, {"verdict", s.verdict}};
}
void from_json(const nlohmann::json& j, ComparisonSection& s) {
  s.baseline_id = field_text(j, "baseline_id");
  s.speedup = field_number(j, "speedup");
  s.ci_low = field_number(j, "ci_low", s.speedup);
  s.ci_high = field_number(j, "ci_high", s.speedup);
  s.ci_valid = field_flag(j, "ci_valid", true);
  s.verdict = field_text(j, "verdict");
}

void to_json(nlohmann::json& j, const PythonLoopSection& s) {
  j = {{"python_version", s.python_version},
       {"torch_version", s.torch_version},
       {"mode", s.mode},
       {"log", s.log},
       {"build_s", s.build_s},
       {"parameters", s.parameters}};
  if (s.first_step_s) j["first_step_s"] = *s.first_step_s;
  if (s.recompiles) j["recompiles"] = *s.recompiles;
}
void from_json(const nlohmann::json& j, PythonLoopSection& s) {
  s.python_version = field_text(j, "python_version");
  s.torch_version = field_text(j, "torch_version");
  s.mode = field_text(j, "mode");
  s.log = field_text(j, "log");
  s.build_s = field_number(j, "build_s");
  s.parameters = field_integer(j, "parameters");
  s.first_step_s = optional_number(j, "first_step_s");
  if (const auto r = optional_number(j, "recompiles")) s.recompiles = static_cast<std::int64_t>(*r);
}

void to_json(nlohmann::json& j, const LossParitySection& s) {
  j = {{"reference_id", s.reference_id},
       {"rel_drift", s.rel_drift},
       {"tolerance", s.tolerance},
       {"ok", s.ok},
       {"steps_compared", s.steps_compared}};
}
void from_json(const nlohmann::json& j, LossParitySection& s) {
  s.reference_id = field_text(j, "reference_id");
  s.rel_drift = field_number(j, "rel_drift");
  s.tolerance = field_number(j, "tolerance");
  s.ok = field_flag(j, "ok", s.rel_drift <= s.tolerance);
  s.steps_compared = field_integer(j, "steps_compared");
}

void to_json(nlohmann::json& j, const RankTiming& s) {
  j = {{"rank", s.rank},
       {"host", s.host},
       {"median_step_s", s.median_step_s},
       {"samples_per_s", s.samples_per_s},
       {"compute_s", s.compute_s},
       {"exposed_comm_s", s.exposed_comm_s}};
}
void from_json(const nlohmann::json& j, RankTiming& s) {
  s.rank = field_count(j, "rank");
  s.host = field_text(j, "host");
  s.median_step_s = field_number(j, "median_step_s");
  s.samples_per_s = field_number(j, "samples_per_s");
  s.compute_s = field_number(j, "compute_s");
  s.exposed_comm_s = field_number(j, "exposed_comm_s");
}

void to_json(nlohmann::json& j, const DataParallelSection& s) {
  j = {{"backend", s.backend},
       {"world_size", s.world_size},
       {"scaling", s.scaling},
       {"global_batch", s.global_batch},
       {"bucket_mb", s.bucket_mb},
       {"buckets", s.buckets},
       {"gradient_bytes", s.gradient_bytes},
       {"exposed_comm_s", s.exposed_comm_s},
       {"overlapped_comm_s", s.overlapped_comm_s},
       {"allreduce_s", s.allreduce_s},
       {"algbw_bytes_per_s", s.algbw_bytes_per_s},
       {"busbw_bytes_per_s", s.busbw_bytes_per_s},
       {"latency_s", s.latency_s},
       {"ranks", s.ranks}};
  put_optional(j, "efficiency", s.efficiency);
  if (!s.efficiency_reference_id.empty()) j["efficiency_reference_id"] = s.efficiency_reference_id;
}
void from_json(const nlohmann::json& j, DataParallelSection& s) {
  s.backend = field_text(j, "backend");
  s.world_size = std::max(1, field_count(j, "world_size"));
  s.scaling = field_text(j, "scaling");
  s.global_batch = field_integer(j, "global_batch");
  s.bucket_mb = field_number(j, "bucket_mb");
  s.buckets = field_integer(j, "buckets");
  s.gradient_bytes = field_integer(j, "gradient_bytes");
  s.exposed_comm_s = field_number(j, "exposed_comm_s");
  s.overlapped_comm_s = field_number(j, "overlapped_comm_s");
  s.allreduce_s = field_number(j, "allreduce_s");
  s.algbw_bytes_per_s = field_number(j, "algbw_bytes_per_s");
  s.busbw_bytes_per_s = field_number(j, "busbw_bytes_per_s");
  s.latency_s = field_number(j, "latency_s");
  s.efficiency = optional_number(j, "efficiency");
  s.efficiency_reference_id = field_text(j, "efficiency_reference_id");
  s.ranks = entries<RankTiming>(j, "ranks");
}

void to_json(nlohmann::json& j, const ProfileSection& s) {
  j = {{"traces", s.traces}};
  put_optional(j, "window_steps", s.window_steps);
  put_optional(j, "window_step_time_s", s.window_step_time_s);
  put_optional(j, "overhead_vs_timed", s.overhead_vs_timed);
  put_optional(j, "dropped_host_spans", s.dropped_host_spans);
  if (!s.cupti_skipped.empty()) j["cupti_skipped"] = s.cupti_skipped;
  if (!s.cupti.is_null()) j["cupti"] = s.cupti;
  if (!s.memory_timeline.is_null()) j["memory_timeline"] = s.memory_timeline;
}
void from_json(const nlohmann::json& j, ProfileSection& s) {
  if (const auto* traces = field_object(j, "traces"))
    for (const auto& [kind, path] : traces->items())
      if (path.is_string() && !path.get<std::string>().empty()) s.traces[kind] = path.get<std::string>();
  s.window_steps = optional_integer(j, "window_steps");
  s.window_step_time_s = optional_number(j, "window_step_time_s");
  s.overhead_vs_timed = optional_number(j, "overhead_vs_timed");
  s.dropped_host_spans = optional_integer(j, "dropped_host_spans");
  s.cupti_skipped = field_text(j, "cupti_skipped");
  if (const auto* cupti = field_object(j, "cupti")) s.cupti = *cupti;
  if (const auto* timeline = field_object(j, "memory_timeline")) s.memory_timeline = *timeline;
}

void to_json(nlohmann::json& j, const ScenarioCapacitySection& s) {
  j = {{"achieved_flops_per_s", s.achieved_flops_per_s}};
  put_optional(j, "flops_per_sample", s.flops_per_sample);
  if (s.peak_flops_per_s > 0) {
    j["peak_flops_per_s"] = s.peak_flops_per_s;
    j["peak_source"] = s.peak_source;
    if (!s.peak_detail.empty()) j["peak_detail"] = s.peak_detail;
    j["mfu"] = s.mfu;
    if (!s.mfu_error.empty()) j["mfu_error"] = s.mfu_error;
  }
  put_optional(j, "projection", s.projection);
}
void from_json(const nlohmann::json& j, ScenarioCapacitySection& s) {
  if (const auto* f = field_object(j, "flops_per_sample")) s.flops_per_sample = f->get<capacity::FlopCount>();
  s.achieved_flops_per_s = field_number(j, "achieved_flops_per_s");
  s.peak_flops_per_s = field_number(j, "peak_flops_per_s");
  s.peak_source = field_text(j, "peak_source");
  s.peak_detail = field_text(j, "peak_detail");
  s.mfu = field_number(j, "mfu");
  s.mfu_error = field_text(j, "mfu_error");
  if (s.mfu_error.empty() && s.peak_flops_per_s > 0) s.mfu_error = capacity::mfu_error(s.mfu);
  if (const auto* p = field_object(j, "projection")) s.projection = projection_from(*p);
}

void to_json(nlohmann::json& j, const BatchSearchEntry& s) {
  j = {{"model", s.model},
       {"precision", s.precision},
       {"max_batch", s.max_batch},
       {"best_batch", s.best_batch},
       {"best_samples_per_s", s.best_samples_per_s},
       {"hit_limit", s.hit_limit},
       {"probes", s.probes}};
}
void from_json(const nlohmann::json& j, BatchSearchEntry& s) {
  s.model = field_text(j, "model");
  s.precision = field_text(j, "precision");
  s.max_batch = field_integer(j, "max_batch");
  s.best_batch = field_integer(j, "best_batch");
  s.best_samples_per_s = field_number(j, "best_samples_per_s");
  s.hit_limit = field_flag(j, "hit_limit");
  s.probes.clear();
  if (auto it = j.find("probes"); it != j.end() && it->is_array())
    for (const auto& p : *it)
      if (p.is_object()) s.probes.push_back(probe_from(p));
}

void to_json(nlohmann::json& j, const MemoryFitEntry& s) {
  j = {{"model", s.model},
       {"precision", s.precision},
       {"fixed_bytes", s.fixed_bytes},
       {"per_sample_bytes", s.per_sample_bytes},
       {"points", s.points},
       {"predicted_max_batch", s.predicted_max_batch}};
  put_optional(j, "r2", s.r2);
  put_optional(j, "memory_bytes", s.memory_bytes);
}
void from_json(const nlohmann::json& j, MemoryFitEntry& s) {
  s.model = field_text(j, "model");
  s.precision = field_text(j, "precision");
  s.fixed_bytes = field_number(j, "fixed_bytes");
  s.per_sample_bytes = field_number(j, "per_sample_bytes");
  s.r2 = optional_number(j, "r2");
  s.points = field_integer(j, "points");
  s.memory_bytes = optional_integer(j, "memory_bytes");
  s.predicted_max_batch = field_integer(j, "predicted_max_batch");
}

void to_json(nlohmann::json& j, const RunCapacitySection& s) {
  j = {{"memory_limit_bytes", s.memory_limit_bytes},
       {"limit_source", s.limit_source},
       {"batch_search", s.batch_search},
       {"memory_fit", s.memory_fit}};
}
void from_json(const nlohmann::json& j, RunCapacitySection& s) {
  s.memory_limit_bytes = field_integer(j, "memory_limit_bytes");
  s.limit_source = field_text(j, "limit_source");
  s.batch_search = entries<BatchSearchEntry>(j, "batch_search");
  s.memory_fit = entries<MemoryFitEntry>(j, "memory_fit");
}

// Every status has its counter, even at 0: a reader needs no default.
void to_json(nlohmann::json& j, const SummarySection& s) {
  j = {{"contended", s.contended}, {"compared", s.compared}};
  for (int i = 0; i < kScenarioStatusCount; ++i) j[to_string(static_cast<ScenarioStatus>(i))] = s.by_status[i];
  put_geomean(j, s.geomean);
  if (!s.workloads.empty()) j["workloads"] = s.workloads;
}
void from_json(const nlohmann::json& j, SummarySection& s) {
  for (int i = 0; i < kScenarioStatusCount; ++i)  // "crashed" is 0 in files from before it
    s.by_status[i] = field_count(j, to_string(static_cast<ScenarioStatus>(i)));
  s.contended = field_count(j, "contended");
  s.compared = field_count(j, "compared");
  s.geomean = geomean_from(j);
  s.workloads = entries<WorkloadSummary>(j, "workloads");
}

void to_json(nlohmann::json& j, const WorkloadSummary& s) {
  j = {{"workload", s.workload}, {"baseline_id", s.baseline_id}, {"compared", s.compared}};
  put_geomean(j, s.geomean);
}
void from_json(const nlohmann::json& j, WorkloadSummary& s) {
  s.workload = field_text(j, "workload");
  s.baseline_id = field_text(j, "baseline_id");
  s.compared = field_count(j, "compared");
  s.geomean = geomean_from(j);
}

void to_json(nlohmann::json& j, const ScalingMember& s) {
  j = {{"id", s.id},
       {"world_size", s.world_size},
       {"reducer_alone", s.reducer_alone},
       {"median_step_s", s.median_step_s},
       {"samples_per_s", s.samples_per_s},
       {"per_rank_samples_per_s", s.per_rank_samples_per_s}};
  put_optional(j, "efficiency", s.efficiency);
}
void from_json(const nlohmann::json& j, ScalingMember& s) {
  s.id = field_text(j, "id");
  s.world_size = std::max(1, field_int(j, "world_size"));
  s.reducer_alone = field_flag(j, "reducer_alone");
  s.median_step_s = field_number(j, "median_step_s");
  s.samples_per_s = field_number(j, "samples_per_s");
  s.per_rank_samples_per_s = field_number(j, "per_rank_samples_per_s", s.samples_per_s / s.world_size);
  s.efficiency = optional_number(j, "efficiency");
}

void to_json(nlohmann::json& j, const ScalingCheck& s) {
  j = {{"id", s.id},
       {"world_size", s.world_size},
       {"measured_step_s", s.measured_step_s},
       {"projected_step_s", s.projected_step_s},
       {"relative_error", s.relative_error},
       {"calibration_point", s.calibration_point},
       {"note", s.note}};
}
void from_json(const nlohmann::json& j, ScalingCheck& s) {
  s.id = field_text(j, "id");
  s.world_size = std::max(1, field_int(j, "world_size"));
  s.measured_step_s = field_number(j, "measured_step_s");
  s.projected_step_s = field_number(j, "projected_step_s");
  s.relative_error = field_number(j, "relative_error");
  s.calibration_point = field_flag(j, "calibration_point");
  s.note = field_text(j, "note");
}

void to_json(nlohmann::json& j, const ScalingModelSection& s) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : s.points) points.push_back(projected_point_json(p));
  j = {{"label", s.label},
       {"calibrated_on", s.calibrated_on},
       {"backend", s.backend},
       {"topology", s.topology},
       {"parameters", step_model_json(s.parameters)},
       {"overlap_lower_bound", s.overlap_lower_bound},
       {"compute_assumption", s.compute_assumption},
       {"efficiency_reference", s.efficiency_reference},
       {"limits", s.limits},
       {"points", points},
       {"checks", s.checks}};
}
void from_json(const nlohmann::json& j, ScalingModelSection& s) {
  s.label = field_text(j, "label", s.label);
  s.calibrated_on = field_text(j, "calibrated_on");
  s.backend = field_text(j, "backend");
  s.topology = field_text(j, "topology");
  if (const auto* m = field_object(j, "parameters")) s.parameters = step_model_from(*m);
  s.overlap_lower_bound = field_flag(j, "overlap_lower_bound");
  s.compute_assumption = field_text(j, "compute_assumption");
  s.efficiency_reference = field_text(j, "efficiency_reference");
  s.limits = texts(j, "limits");
  s.points.clear();
  if (const auto it = j.find("points"); it != j.end() && it->is_array())
    for (const auto& p : *it)
      if (p.is_object()) s.points.push_back(projected_point_from(p));
  s.checks = entries<ScalingCheck>(j, "checks");
}

void to_json(nlohmann::json& j, const ScalingSeries& s) {
  j = {{"label", s.label},
       {"scaling", s.scaling},
       {"reference_id", s.reference_id},
       {"reference_samples_per_s", s.reference_samples_per_s},
       {"members", s.members}};
  if (s.global_batch > 0) j["global_batch"] = s.global_batch;
  if (!s.reducer_alone_id.empty()) j["reducer_alone_id"] = s.reducer_alone_id;
  put_optional(j, "ddp_overhead", s.ddp_overhead);
  put_optional(j, "model", s.model);
  if (!s.note.empty()) j["note"] = s.note;
}
void from_json(const nlohmann::json& j, ScalingSeries& s) {
  s.label = field_text(j, "label");
  s.scaling = field_text(j, "scaling", "weak");
  s.global_batch = field_integer(j, "global_batch");
  s.reference_id = field_text(j, "reference_id");
  s.reference_samples_per_s = field_number(j, "reference_samples_per_s");
  s.reducer_alone_id = field_text(j, "reducer_alone_id");
  s.ddp_overhead = optional_number(j, "ddp_overhead");
  s.members = entries<ScalingMember>(j, "members");
  if (const auto* m = field_object(j, "model")) s.model = m->get<ScalingModelSection>();
  s.note = field_text(j, "note");
}

void to_json(nlohmann::json& j, const ScalingSection& s) { j = {{"series", s.series}}; }
void from_json(const nlohmann::json& j, ScalingSection& s) { s.series = entries<ScalingSeries>(j, "series"); }

void to_json(nlohmann::json& j, const DatasetSection& s) { j = {{"samples", s.samples}}; }
void from_json(const nlohmann::json& j, DatasetSection& s) { s.samples = field_integer(j, "samples"); }

void to_json(nlohmann::json& j, const PeakEntry& s) {
  j = {{"device", s.device}, {"precision", s.precision}, {"peak", s.peak}};
}
void from_json(const nlohmann::json& j, PeakEntry& s) {
  s.device = field_text(j, "device");
  s.precision = field_text(j, "precision");
  if (const auto* peak = field_object(j, "peak")) s.peak = peak->get<capacity::PeakResult>();
}

}  // namespace tb
