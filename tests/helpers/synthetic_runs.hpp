// Deterministic synthetic results for the statistics, comparison and history tests: step
// times with a chosen median and relative noise, without std::*_distribution (whose output
// differs between standard libraries), so golden outputs are portable.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <trainbench/measure/segment_stats.hpp>
#include <trainbench/measure/stats.hpp>
#include <trainbench/results/results.hpp>

namespace tb::testing {

// n samples uniformly spread in median * [1 - rel_noise, 1 + rel_noise], shuffled by an LCG.
inline std::vector<double> jittered(double median, double rel_noise, int n, std::uint64_t seed) {
  std::vector<double> v;
  std::uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int i = 0; i < n; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
    v.push_back(median * (1.0 + rel_noise * (2.0 * u - 1.0)));
  }
  return v;
}

inline ScenarioResult make_scenario(const std::string& model, Precision precision, int batch,
                                    const std::vector<double>& step_times,
                                    std::vector<double> loss_curve = {}) {
  ScenarioResult s;
  s.params.model = model;
  s.params.precision = precision;
  s.params.batch = batch;
  s.params.effective_batch = batch;
  s.id = scenario_id(s.params);
  s.step_times_s = step_times;
  s.step_time_s = stats::summarize(step_times);
  s.measured_steps = static_cast<int>(step_times.size());
  s.samples_per_s = batch / s.step_time_s.median;
  s.loss_curve = std::move(loss_curve);
  if (!s.loss_curve.empty()) {
    s.loss_start = s.loss_curve.front();
    s.loss_end = s.loss_curve.back();
  }
  return s;
}

// A scenario measured in segments: segment j's steps are jittered around segment_medians[j]
// (rel_noise), as the interleaved runner records them.
inline ScenarioResult make_segmented_scenario(const std::string& model, Precision precision, int batch,
                                              const std::vector<double>& segment_medians,
                                              int steps_per_segment = 10, double rel_noise = 0.01,
                                              std::uint64_t seed = 1) {
  std::vector<double> steps;
  std::vector<Segment> segments;
  for (std::size_t j = 0; j < segment_medians.size(); ++j) {
    const auto seg = jittered(segment_medians[j], rel_noise, steps_per_segment, seed + j);
    steps.insert(steps.end(), seg.begin(), seg.end());
    segments.push_back({static_cast<int>(j), steps_per_segment, stats::median(seg),
                        static_cast<double>(j)});
  }
  ScenarioResult s = make_scenario(model, precision, batch, steps);
  s.segments = segments;
  std::vector<double> medians;
  for (const auto& g : segments) medians.push_back(g.median_s);
  s.step_time_s = stats::summarize_segmented(steps, medians);
  s.samples_per_s = batch / s.step_time_s.median;
  return s;
}

// Marks a scenario as measured on a loaded machine.
inline ScenarioResult contended(ScenarioResult s, double other_cores = 1.8) {
  s.disturbance = {{"contended", true},
                   {"other_cpu_cores", other_cores},
                   {"reason", "other processes used " + std::to_string(other_cores) + " cores"}};
  return s;
}

inline ScenarioResult failed_scenario(const std::string& model, Precision precision, int batch,
                                      ScenarioStatus status, const std::string& message) {
  ScenarioResult s;
  s.params.model = model;
  s.params.precision = precision;
  s.params.batch = batch;
  s.params.effective_batch = batch;
  s.id = scenario_id(s.params);
  s.status = status;
  s.message = message;
  return s;
}

inline RunResult make_run(const std::string& run_id, std::vector<ScenarioResult> scenarios,
                          const std::string& cpu_model = "Test CPU 9000",
                          const std::string& started_at = "2026-01-01T00:00:00Z",
                          const std::string& git_revision = "0123456789abcdef") {
  RunResult r;
  r.run_id = run_id;
  r.matrix_name = "synthetic";
  r.environment = {{"cpu", {{"model", cpu_model}}},
                   {"device", "cpu"},
                   {"gpu", nlohmann::json::array()},
                   {"started_at", started_at},
                   {"git_revision", git_revision},
                   {"command_line", {"trainbench", "run", "synthetic.yaml"}}};
  r.scenarios = std::move(scenarios);
  if (!r.scenarios.empty()) r.baseline_id = r.scenarios.front().id;
  return r;
}

// A loss curve decaying from 2.0 towards `floor`, one value per step.
inline std::vector<double> loss_curve(int steps, double floor) {
  std::vector<double> v;
  for (int i = 0; i < steps; ++i) v.push_back(floor + (2.0 - floor) * std::exp(-0.2 * i));
  return v;
}

}  // namespace tb::testing
