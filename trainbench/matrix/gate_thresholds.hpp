// Per-scenario CI thresholds, from the matrix's "gates" list (docs/gating-ci.md#per-scenario-gates-in-the-matrix):
//
//   "gates": [
//     {"step_time_pct": 5, "peak_memory_pct": 10},                    // every scenario
//     {"match": {"model": "gpt2"}, "step_time_pct": 3, "loss_drift": 0.02},
//     {"match": {"precision": ["amp_bf16", "amp_fp16"]}, "loss_drift": 0.05}
//   ]
//
// Rules apply in order; a later matching rule overrides the metrics it names (a selector is
// {axis: value or [values]}, as in "exclude"). Each scenario carries what resolved for it in its
// params (results.json), so `compare`, `ab` and `history --changes` judge it by the thresholds of
// the matrix that measured the new side, whoever runs them. Throughput and MFU of one scenario
// are its step time inverted (same batch, same FLOPs): the step-time threshold covers them.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

namespace tb {

struct GateThresholds {
  // Slower by at least this percent (the gate's interval wholly beyond it) fails.
  std::optional<double> step_time_pct;
  // Peak memory (device, else host) more than this percent above the old run's fails.
  std::optional<double> peak_memory_pct;
  // The new run's loss at the steps both runs reached, relative to the old run's (loss_drift in
  // comparison.hpp), above this fails: a change that trains differently.
  std::optional<double> loss_drift;

  bool empty() const { return !step_time_pct && !peak_memory_pct && !loss_drift; }
  // The metrics `later` names replace these.
  void override_with(const GateThresholds& later);
};

// {"step_time_pct": 5, ...} with only the metrics set. from_json reads what is well-formed.
void to_json(nlohmann::json& j, const GateThresholds& g);
void from_json(const nlohmann::json& j, GateThresholds& g);

// One entry of the matrix's "gates": the selector ({} = every scenario) and its thresholds.
struct GateRule {
  nlohmann::json match = nlohmann::json::object();
  GateThresholds thresholds;
};

}  // namespace tb
