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
                                    const std::vector<double>& step_times, std::vector<double> loss_curve = {}) {
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
                                              const std::vector<double>& segment_medians, int steps_per_segment = 10,
                                              double rel_noise = 0.01, std::uint64_t seed = 1) {
  std::vector<double> steps;
  std::vector<Segment> segments;
  for (std::size_t j = 0; j < segment_medians.size(); ++j) {
    const auto seg = jittered(segment_medians[j], rel_noise, steps_per_segment, seed + j);
    steps.insert(steps.end(), seg.begin(), seg.end());
    segments.push_back({static_cast<int>(j), steps_per_segment, stats::median(seg), static_cast<double>(j)});
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
  Disturbance d;
  d.contended = true;
  d.other_cpu_cores = other_cores;
  d.reason = "other processes used " + std::to_string(other_cores) + " cores";
  s.disturbance = d;
  return s;
}

inline ScenarioResult failed_scenario(const std::string& model, Precision precision, int batch, ScenarioStatus status,
                                      const std::string& message) {
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
  r.environment = {{"cpu", {{"model", cpu_model}}},  {"device", "cpu"},
                   {"gpu", nlohmann::json::array()}, {"started_at", started_at},
                   {"git_revision", git_revision},   {"command_line", {"trainbench", "run", "synthetic.yaml"}}};
  r.scenarios = std::move(scenarios);
  if (!r.scenarios.empty()) r.baseline_id = r.scenarios.front().id;
  return r;
}

// A matrix of several workloads, as scenarios/standard.json measures them: resnet50, vit_b_16
// and gpt2 at fp32 and amp_bf16, batch 8 and 32 (gpt2 at 8 only, as an exclude would leave it),
// 6 rounds each; the run's baseline resnet50/fp32/w0/a1/b8. Per sample, bf16 is 1.25x faster
// than fp32 on resnet50, 2.5x on vit_b_16 and 4x on gpt2; batch 32 is 1.6x (resnet50) and 1.2x
// (vit_b_16) faster than 8. GPT-2's fp32 step is 12.4x ResNet-50's: against the run's baseline
// it would read 0.08x. `gpt2_slowdown` stretches every gpt2 step (a regression in NEW).
inline RunResult three_workload_run(const std::string& run_id = "workloads", double gpt2_slowdown = 1.0) {
  struct Workload {
    const char* model;
    double fp32_b8_s, bf16_speedup, b32_speedup;
    bool has_b32;
  };
  const Workload workloads[] = {
      {"resnet50", 0.050, 1.25, 1.6, true}, {"vit_b_16", 0.100, 2.5, 1.2, true}, {"gpt2", 0.620, 4.0, 1.0, false}};
  std::vector<ScenarioResult> scenarios;
  std::uint64_t seed = 1;
  for (const auto& w : workloads)
    for (const Precision precision : {Precision::fp32, Precision::amp_bf16})
      for (const int batch : {8, 32}) {
        if (batch == 32 && !w.has_b32) continue;
        double step = w.fp32_b8_s * (std::string(w.model) == "gpt2" ? gpt2_slowdown : 1.0);
        if (precision == Precision::amp_bf16) step /= w.bf16_speedup;
        if (batch == 32) step *= 4.0 / w.b32_speedup;
        std::vector<double> medians;
        for (int round = 0; round < 6; ++round) medians.push_back(step * (1.0 + 0.004 * ((round * 7 + seed) % 5)));
        scenarios.push_back(make_segmented_scenario(w.model, precision, batch, medians, 5, 0.01, seed++ * 13));
      }
  RunResult run = make_run(run_id, std::move(scenarios));
  run.matrix_name = "standard";
  return run;
}

// A loss curve decaying from 2.0 towards `floor`, one value per step.
inline std::vector<double> loss_curve(int steps, double floor) {
  std::vector<double> v;
  for (int i = 0; i < steps; ++i) v.push_back(floor + (2.0 - floor) * std::exp(-0.2 * i));
  return v;
}

}  // namespace tb::testing
