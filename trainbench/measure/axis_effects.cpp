#include <trainbench/measure/axis_effects.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/measure/comparison.hpp>

namespace tb {

namespace {

// What a scenario's other settings are, this axis left out: two scenarios with the same context
// differ only in this axis. `same_effective_batch` lets the micro-batch follow the axis at a
// fixed effective batch: how a matrix with hold_effective_batch measures accumulation (a1/b64
// against a4/b16), the one axis whose question is asked at the batch the optimizer sees.
std::string context_without(const ScenarioParams& p, const char* axis, bool same_effective_batch = false) {
  nlohmann::json key = scenario_key(p);
  key.erase(axis);
  if (same_effective_batch) {
    key.erase("batch");
    key["effective_batch"] = global_batch(p);
  }
  return key.dump();
}

// The values of every knob, or of every axis that is not one (the workload and the ranks).
std::string axes_part(const ScenarioParams& p, bool knobs) {
  nlohmann::json part = nlohmann::json::object();
  for (const ScenarioAxis& axis : scenario_axes())
    if (axis.knob == knobs) part[axis.name] = axis.value(p);
  return part.dump();
}
std::string knob_settings(const ScenarioParams& p) { return axes_part(p, true); }
std::string configuration_group(const ScenarioParams& p) { return axes_part(p, false); }

// "resnet@images (cuda)": the workload axes as a scenario id shows them.
std::string workload_label(const ScenarioParams& p) {
  std::string label = p.model;
  if (!p.dataset.empty()) label += "@" + p.dataset;
  if (p.world_size > 1) label += " x" + std::to_string(p.world_size) + " ranks";
  return label + " (" + to_string(p.device) + ")";
}

// The geometric mean of the pairs' ratios and of their bounds. Pairs measured in one run share
// its conditions (this machine's speed wanders 2-18% between runs, and bf16 does not wander the
// way fp32 does), so their errors are not independent, and stats::geometric_mean's sqrt(k)
// shrinkage claimed too much: on four repeat runs of quick.json its bf16 intervals
// ([1.16, 1.34] and [1.34, 1.49]) barely touched. Averaging the bounds keeps each pair's width.
stats::RatioInterval geometric_mean_of_intervals(const std::vector<stats::RatioInterval>& pairs) {
  double log_ratio = 0, log_low = 0, log_high = 0;
  bool valid = true;
  for (const auto& p : pairs) {
    log_ratio += std::log(p.ratio);
    log_low += std::log(p.low);
    log_high += std::log(p.high);
    valid = valid && p.valid;
  }
  const double k = static_cast<double>(pairs.size());
  return {std::exp(log_ratio / k), std::exp(log_low / k), std::exp(log_high / k), valid};
}

}  // namespace

namespace {

// The effects among one workload's timed scenarios, against its baseline's values.
std::vector<AxisEffect> workload_effects(const ScenarioResult& baseline_scenario,
                                         const std::vector<const ScenarioResult*>& timed, double same_threshold) {
  const ScenarioResult* baseline = &baseline_scenario;
  std::vector<AxisEffect> effects;
  for (const ScenarioAxis& axis : scenario_axes()) {
    if (!axis.knob) continue;
    const nlohmann::json reference = axis.value(baseline->params);
    std::vector<nlohmann::json> values;  // in the order the scenarios have them
    for (const ScenarioResult* s : timed) {
      const nlohmann::json v = axis.value(s->params);
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    if (values.size() < 2) continue;
    auto pairs_at = [&](const nlohmann::json& value, bool same_effective_batch) {
      std::map<std::string, const ScenarioResult*> at_reference;
      for (const ScenarioResult* s : timed)
        if (axis.value(s->params) == reference)
          at_reference.emplace(context_without(s->params, axis.name, same_effective_batch), s);
      std::vector<std::pair<stats::RatioInterval, bool>> pairs;  // speedup, drifted
      for (const ScenarioResult* s : timed) {
        if (axis.value(s->params) != value) continue;
        const auto ref = at_reference.find(context_without(s->params, axis.name, same_effective_batch));
        if (ref != at_reference.end())
          pairs.emplace_back(per_sample_speedup(*ref->second, *s), loss_drifted(s->loss_parity));
      }
      return pairs;
    };
    for (const nlohmann::json& value : values) {
      if (value == reference) continue;
      auto found = pairs_at(value, false);
      if (found.empty() && std::string_view(axis.name) == "accumulation") found = pairs_at(value, true);
      if (found.empty()) continue;
      std::vector<stats::RatioInterval> pairs;
      int drifted_pairs = 0;
      for (const auto& [speedup, drift] : found) {
        pairs.push_back(speedup);
        drifted_pairs += drift ? 1 : 0;
      }
      AxisEffect e;
      e.axis = axis.name;
      e.value = axis_text(value);
      e.reference = axis_text(reference);
      e.pairs = static_cast<int>(pairs.size());
      e.drifted_pairs = drifted_pairs;
      e.speedup = geometric_mean_of_intervals(pairs);
      const auto [lo, hi] = std::minmax_element(pairs.begin(), pairs.end(),
                                                [](const auto& a, const auto& b) { return a.ratio < b.ratio; });
      e.lowest = lo->ratio;
      e.highest = hi->ratio;
      e.verdict = stats::to_string(stats::classify(e.speedup, same_threshold));
      effects.push_back(std::move(e));
    }
  }
  return effects;
}

}  // namespace

std::vector<AxisEffect> axis_effects(const RunResult& run, double same_threshold) {
  if (find_scenario(run, run.baseline_id) == nullptr) return {};
  // Within each workload, against its own baseline: a setting's effect on ResNet-50 and on
  // GPT-2 are two answers.
  const auto workloads = run_workloads(run);
  std::vector<AxisEffect> effects;
  for (const auto& workload : workloads) {
    const ScenarioResult* reference = workload_reference(run, workload);
    if (reference == nullptr) continue;
    std::vector<const ScenarioResult*> timed;
    for (const auto& s : run.scenarios)
      if (has_step_timing(s) && workload_of(s.params) == workload) timed.push_back(&s);
    for (auto& e : workload_effects(*reference, timed, same_threshold)) {
      if (workloads.size() > 1) e.workload = workload;
      effects.push_back(std::move(e));
    }
  }
  return effects;
}

std::vector<BestConfiguration> best_configurations(const RunResult& run, double same_threshold) {
  const ScenarioResult* baseline = find_scenario(run, run.baseline_id);
  // Groups in order of first appearance, each ranked by throughput.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ScenarioResult*>> groups;
  for (const auto& s : run.scenarios) {
    if (!has_step_timing(s) || s.samples_per_s <= 0) continue;
    const std::string w = configuration_group(s.params);
    if (!groups.count(w)) order.push_back(w);
    groups[w].push_back(&s);
  }
  std::vector<BestConfiguration> found;
  for (const auto& w : order) {
    auto& ranked = groups[w];
    std::stable_sort(ranked.begin(), ranked.end(), [](const ScenarioResult* a, const ScenarioResult* b) {
      return a->samples_per_s > b->samples_per_s;
    });
    BestConfiguration best;
    if (order.size() > 1) best.workload = workload_label(ranked.front()->params);
    const ScenarioResult* first = nullptr;
    for (const ScenarioResult* s : ranked) {
      if (loss_drifted(s->loss_parity)) {
        if (first == nullptr) best.faster_but_drifted.push_back(s->id);
        continue;
      }
      if (first == nullptr) {
        first = s;
        continue;
      }
      best.runner_up_id = s->id;
      best.vs_runner_up = per_sample_speedup(*s, *first);
      best.verdict_vs_runner_up = stats::to_string(stats::classify(best.vs_runner_up, same_threshold));
      break;
    }
    if (first == nullptr) continue;
    best.id = first->id;
    if (baseline != nullptr) {
      const std::string settings = knob_settings(baseline->params);
      for (const ScenarioResult* s : ranked)
        if (s != first && knob_settings(s->params) == settings) {
          best.reference_id = s->id;
          best.vs_reference = per_sample_speedup(*s, *first);
          best.verdict_vs_reference = stats::to_string(stats::classify(best.vs_reference, same_threshold));
        }
    }
    found.push_back(std::move(best));
  }
  return found;
}

}  // namespace tb
