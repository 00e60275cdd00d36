#include <trainbench/measure/scaling.hpp>

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include <trainbench/capacity/scaling_projection.hpp>
#include <trainbench/matrix/axis.hpp>

namespace tb {

namespace {

bool measured(const ScenarioResult& s) { return s.status == ScenarioStatus::ok && s.samples_per_s > 0; }

std::string millis_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  return buf;
}

// The model's parameters from one measured data-parallel scenario; nullopt when it lacks what
// the model needs (a bandwidth, a gradient size, a compute time).
std::optional<capacity::StepModel> calibrate(const ScenarioResult& s) {
  const auto& dp = *s.data_parallel;
  if (!(dp.busbw_bytes_per_s > 0) || dp.gradient_bytes <= 0) return std::nullopt;
  capacity::StepModel m;
  m.strong = s.params.scaling == ScalingMode::strong;
  m.calibrated_world_size = s.params.world_size;
  m.calibrated_global_batch = dp.global_batch > 0 ? dp.global_batch : global_batch(s.params);
  // Every rank waits for the slowest one at the collective: its compute sets the pace.
  for (const auto& r : dp.ranks) m.compute_s = std::max(m.compute_s, r.compute_s);
  if (m.compute_s <= 0) m.compute_s = s.step_time_s.median - dp.exposed_comm_s;
  if (!(m.compute_s > 0)) return std::nullopt;
  m.gradient_bytes = static_cast<double>(dp.gradient_bytes);
  m.overlap_s = dp.overlapped_comm_s;
  m.comm = {capacity::ring_alpha(dp.latency_s, s.params.world_size), dp.busbw_bytes_per_s};
  return m;
}

std::vector<std::string> model_limits(const ScalingModelSection& model) {
  std::vector<std::string> limits = {
      "one node's measured bus bandwidth is assumed at every size: no hierarchy, no inter-node links, "
      "no switch or link contention",
      "a plain ring all-reduce: no tree or hierarchical algorithm, no in-network reduction",
      "the overlap backward gave at " + std::to_string(model.parameters.calibrated_world_size) +
          " ranks is assumed at every size",
      "no stragglers beyond the measured slowest rank, no failures, no data-loading limits"};
  if (model.parameters.strong)
    limits.push_back("strong scaling: sizes above the global batch (" +
                     std::to_string(model.parameters.calibrated_global_batch) +
                     ") are left out (less than one sample per rank)");
  return limits;
}

ScalingModelSection build_model(const ScenarioResult& calibration, const capacity::StepModel& parameters,
                                const ScalingSeries& series) {
  const auto& dp = *calibration.data_parallel;
  ScalingModelSection model;
  model.calibrated_on = calibration.id;
  model.backend = dp.backend;
  model.topology = comm_topology(dp);
  model.parameters = parameters;
  // Backward hid everything it was given: it might have hidden more, so the overlap is a floor.
  const double t_m =
      capacity::ring_allreduce_s(parameters.comm, parameters.calibrated_world_size, parameters.gradient_bytes);
  model.overlap_lower_bound = dp.exposed_comm_s <= std::max(1e-6, 0.01 * t_m);
  const std::string n_m = std::to_string(parameters.calibrated_world_size);
  model.compute_assumption =
      parameters.strong
          ? "the slowest rank's " + millis_text(parameters.compute_s) + " per step at " + n_m + " ranks × " + n_m +
                "/n, assumed linear in the per-rank batch (fixed per-step costs such as the optimizer step "
                "do not shrink, so this is optimistic)"
          : "the slowest rank's " + millis_text(parameters.compute_s) + " per step at " + n_m +
                " ranks, at every size (fixed per-rank batch)";
  model.efficiency_reference = series.reference_id.empty() ? "the model's own world size 1 (no measured reference)"
                                                           : "measured world size 1: " + series.reference_id;
  model.limits = model_limits(model);

  std::vector<int> sizes;
  for (const auto& m : series.members)
    if (!m.reducer_alone) sizes.push_back(m.world_size);
  const std::optional<double> reference =
      series.reference_id.empty() ? std::nullopt : std::optional<double>(series.reference_samples_per_s);
  model.points = capacity::project_scaling(parameters, capacity::projection_sizes(sizes), reference);

  for (const auto& m : series.members) {
    if (m.world_size <= 1 || !(m.median_step_s > 0)) continue;
    const auto p = capacity::project_step(parameters, m.world_size);
    if (!p) continue;
    ScalingCheck check;
    check.id = m.id;
    check.world_size = m.world_size;
    check.measured_step_s = m.median_step_s;
    check.projected_step_s = p->step_s;
    check.relative_error = p->step_s / m.median_step_s - 1.0;
    check.calibration_point = m.id == calibration.id;
    check.note = check.calibration_point
                     ? "calibrated at this point: compute, bandwidth, latency and overlap come from this "
                       "scenario, so this checks the model's consistency, not a prediction"
                     : "predicted: not used to calibrate the model";
    model.checks.push_back(std::move(check));
  }
  return model;
}

ScalingSeries analyse_series(RunResult& run, const std::string& label) {
  ScalingSeries series;
  series.label = label;
  std::vector<ScenarioResult*> members;
  for (auto& s : run.scenarios)
    if (scaling_series_label(s.params) == label) {
      series.scaling = to_string(s.params.scaling);
      if (s.params.scaling == ScalingMode::strong) series.global_batch = global_batch(s.params);
      if (measured(s)) members.push_back(&s);
    }
  // Ascending world size; at world size 1 the reference before the reducer-alone one.
  std::stable_sort(members.begin(), members.end(), [](const ScenarioResult* a, const ScenarioResult* b) {
    return std::pair(a->params.world_size, a->params.reducer == ReducerMode::always) <
           std::pair(b->params.world_size, b->params.reducer == ReducerMode::always);
  });
  const ScenarioResult* reference = nullptr;
  const ScenarioResult* reducer_alone = nullptr;
  for (const auto* s : members) {
    if (s->params.world_size != 1) continue;
    if (s->params.reducer != ReducerMode::always && !reference) reference = s;
    if (s->params.reducer == ReducerMode::always && !reducer_alone) reducer_alone = s;
  }
  if (reference) {
    series.reference_id = reference->id;
    series.reference_samples_per_s = reference->samples_per_s;
  } else {
    series.note = "no world size 1 scenario without the reducer finished ok: no efficiency";
  }
  if (reducer_alone) {
    series.reducer_alone_id = reducer_alone->id;
    if (reference) series.ddp_overhead = 1.0 - reducer_alone->samples_per_s / reference->samples_per_s;
  }

  ScenarioResult* calibration = nullptr;
  std::optional<capacity::StepModel> parameters;
  for (auto* s : members) {
    ScalingMember m;
    m.id = s->id;
    m.world_size = s->params.world_size;
    m.reducer_alone = s->params.reducer == ReducerMode::always;
    m.median_step_s = s->step_time_s.median;
    m.samples_per_s = s->samples_per_s;
    m.per_rank_samples_per_s = s->samples_per_s / m.world_size;
    if (reference) {
      m.efficiency = capacity::scaling_efficiency(s->samples_per_s, m.world_size, reference->samples_per_s);
      if (s->data_parallel) {
        s->data_parallel->efficiency = m.efficiency;
        s->data_parallel->efficiency_reference_id = reference->id;
      }
    }
    series.members.push_back(std::move(m));
    if (s->params.world_size > 1 && s->data_parallel)
      if (auto p = calibrate(*s)) {  // members ascend: the last one that calibrates is the largest
        calibration = s;
        parameters = p;
      }
  }
  if (calibration) {
    series.model = build_model(*calibration, *parameters, series);
  } else {
    if (!series.note.empty()) series.note += "; ";
    series.note += "no projection: no ok scenario above world size 1 measured a bus bandwidth and compute time";
  }
  return series;
}

}  // namespace

std::string scaling_series_label(const ScenarioParams& p) {
  // The reducer alone is world size 1 of the same series.
  if (p.scaling != ScalingMode::strong) return scenario_id_without_all(p, {"world_size", "reducer"});
  return scenario_id_without_all(p, {"world_size", "reducer", "batch"}) + " (global batch " +
         std::to_string(global_batch(p)) + ")";
}

std::string comm_topology(const DataParallelSection& dp) {
  std::set<std::string> hosts;
  for (const auto& r : dp.ranks)
    if (!r.host.empty()) hosts.insert(r.host);
  const std::string ranks = " (" + std::to_string(dp.world_size) + (dp.world_size == 1 ? " rank)" : " ranks)");
  const std::string backend = dp.backend.empty() ? "unknown backend" : dp.backend;
  if (hosts.size() > 1) return backend + ", " + std::to_string(hosts.size()) + " nodes" + ranks;
  // One host (or none recorded: every rank a local one).
  return backend + (dp.backend == "gloo" ? " over loopback" : "") + ", one node" + ranks;
}

void annotate_scaling(RunResult& run) {
  std::vector<std::string> labels;
  for (auto& s : run.scenarios) {
    if (s.data_parallel) {
      s.data_parallel->efficiency.reset();
      s.data_parallel->efficiency_reference_id.clear();
    }
    if (!is_data_parallel(s.params)) continue;
    const std::string label = scaling_series_label(s.params);
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
  }
  if (labels.empty()) {
    run.scaling.reset();
    return;
  }
  ScalingSection section;
  for (const auto& label : labels) section.series.push_back(analyse_series(run, label));
  run.scaling = std::move(section);
}

}  // namespace tb
