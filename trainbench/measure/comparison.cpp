#include <trainbench/measure/comparison.hpp>
#include <trainbench/support/join.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/measure/scaling.hpp>
#include <trainbench/measure/segment_stats.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/results/machine.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_fields.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb {

namespace {

// Parameters that must match for two scenarios' loss curves to be comparable, precision aside.
nlohmann::json parity_key(const ScenarioParams& p) {
  ScenarioParams q = p;
  q.precision = loss_reference_precision();
  nlohmann::json k = scenario_key(q);
  k["seed"] = p.seed;
  k["learning_rate"] = p.learning_rate;
  k["model_options"] = p.model_options;
  k["dataset_options"] = p.dataset_options;
  return k;
}

double tail_mean(const std::vector<double>& curve, std::size_t common) {
  const std::size_t k = std::min<std::size_t>(5, common);
  double sum = 0;
  for (std::size_t i = common - k; i < common; ++i) sum += curve[i];
  return sum / static_cast<double>(k);
}

std::string json_string_at(const nlohmann::json& env, const nlohmann::json::json_pointer& ptr) {
  if (!env.is_object() || !env.contains(ptr)) return "";
  const auto& v = env.at(ptr);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string join_or_none(const std::vector<std::string>& v) { return v.empty() ? "none" : join(v); }

}  // namespace

bool has_step_timing(const ScenarioResult& s) {
  return s.status == ScenarioStatus::ok && (!s.step_times_s.empty() || s.step_time_s.median > 0);
}

stats::RatioInterval per_sample_speedup(const ScenarioResult& baseline, const ScenarioResult& candidate) {
  // Segments pair by round only when both were interleaved in one session: a scenario measured
  // again by `run --resume`, or by another shard of a merged run, is set against the rest as
  // between runs.
  const auto r = step_time_speedup(baseline, candidate, measured_together(baseline.provenance, candidate.provenance));
  // Per-sample time: a step processes the scenario's global batch (effective_batch on each rank).
  const double scale = static_cast<double>(std::max(1LL, global_batch(candidate.params))) /
                       static_cast<double>(std::max(1LL, global_batch(baseline.params)));
  return {r.ratio * scale, r.low * scale, r.high * scale, r.valid};
}

// ------------------------------------------------------------------ within one run

namespace {

// The scenario's typical step time: the segment center when it has segments.
double overall_median(const ScenarioResult& s) {
  if (!s.segments.empty()) {
    std::vector<double> medians;
    for (const auto& seg : s.segments) medians.push_back(seg.median_s);
    return stats::segment_center(medians);
  }
  return s.step_times_s.empty() ? s.step_time_s.median : stats::median(s.step_times_s);
}

std::vector<double> segment_medians(const ScenarioResult& s) {
  std::vector<double> out;
  for (const auto& seg : s.segments) out.push_back(seg.median_s);
  return out;
}

// The new run's matrix gates on peak memory and loss (params.gates), when it set them.
void judge_matrix_gates(const ScenarioResult& o, const ScenarioResult& s, ScenarioComparison& c) {
  const GateThresholds& gates = s.params.gates;
  c.old_peak_bytes = static_cast<double>(peak_memory_bytes(o));
  c.new_peak_bytes = static_cast<double>(peak_memory_bytes(s));
  if (gates.peak_memory_pct && c.old_peak_bytes > 0 && c.new_peak_bytes > 0) {
    c.memory_gate_pct = gates.peak_memory_pct;
    c.memory_regression = c.new_peak_bytes > c.old_peak_bytes * (1 + *gates.peak_memory_pct / 100);
  }
  if (gates.loss_drift) {
    c.loss_gate = gates.loss_drift;
    c.loss_drift = loss_drift(s, o).rel_drift;
    c.loss_regression = c.loss_drift > *gates.loss_drift;
  }
}

}  // namespace

stats::RatioInterval step_time_speedup(const ScenarioResult& baseline, const ScenarioResult& candidate, bool paired,
                                       double coverage) {
  const double b = overall_median(baseline), c = overall_median(candidate);
  if (!(b > 0 && c > 0)) throw std::invalid_argument("step_time_speedup: scenario without step times");
  const double ratio = b / c;
  if (paired) {
    // Rounds both took part in: the two segments of a round were measured minutes apart at
    // most, under the same machine state, so their ratio cancels the drift.
    std::vector<double> bs, cs;
    for (const auto& sb : baseline.segments)
      for (const auto& sc : candidate.segments)
        if (sb.round == sc.round && sb.median_s > 0 && sc.median_s > 0) {
          bs.push_back(sb.median_s);
          cs.push_back(sc.median_s);
        }
    if (bs.size() >= stats::kMinSegments) return stats::paired_ratio_interval(ratio, bs, cs, coverage);
  }
  const auto seg_b = segment_medians(baseline), seg_c = segment_medians(candidate);
  return stats::welch_ratio_interval(ratio, stats::replicates(baseline.step_times_s, seg_b),
                                     stats::replicates(candidate.step_times_s, seg_c), coverage);
}

LossDrift loss_drift(const ScenarioResult& scenario, const ScenarioResult& reference) {
  LossDrift d;
  const std::size_t common = std::min(scenario.loss_curve.size(), reference.loss_curve.size());
  double value = scenario.loss_end, ref = reference.loss_end;
  if (common > 0) {
    value = tail_mean(scenario.loss_curve, common);
    ref = tail_mean(reference.loss_curve, common);
    d.steps_compared = common;
  }
  if (!std::isfinite(value) || !std::isfinite(ref)) {
    d.rel_drift = std::numeric_limits<double>::max();
    return d;
  }
  // Relative to the reference's loss, but never to less than kLossDriftFloor of where it started:
  // once a small model has memorized its data (0.008 against 0.0088), a tenth of a nearly zero
  // loss is no drift, while 0.5 against 0.4 after starting at 2.3 still is.
  const double start = reference.loss_curve.empty() ? reference.loss_start : reference.loss_curve.front();
  const double floor = std::isfinite(start) ? kLossDriftFloor * std::abs(start) : 0.0;
  d.rel_drift = std::abs(value - ref) / std::max({std::abs(ref), floor, 1e-12});
  return d;
}

std::vector<std::string> run_workloads(const RunResult& run) {
  std::vector<std::string> order;
  for (const auto& s : run.scenarios) {
    const std::string w = workload_of(s.params);
    if (std::find(order.begin(), order.end(), w) == order.end()) order.push_back(w);
  }
  return order;
}

const ScenarioResult* workload_baseline(const RunResult& run, const std::string& workload,
                                        const std::string& baseline_id) {
  const ScenarioResult* baseline = find_scenario(run, baseline_id.empty() ? run.baseline_id : baseline_id);
  if (baseline == nullptr) return nullptr;
  const nlohmann::json settings = settings_key(baseline->params);
  for (const auto& s : run.scenarios)
    if (has_step_timing(s) && workload_of(s.params) == workload && settings_key(s.params) == settings) return &s;
  return nullptr;
}

const ScenarioResult* workload_reference(const RunResult& run, const std::string& workload) {
  for (const auto& s : run.scenarios)
    if (s.comparison && s.comparison->verdict == "baseline" && has_step_timing(s) && workload_of(s.params) == workload)
      return &s;
  return workload_baseline(run, workload);
}

bool compared_across_workloads(const RunResult& run) {
  for (const auto& s : run.scenarios) {
    if (!s.comparison) continue;
    const ScenarioResult* against = find_scenario(run, s.comparison->baseline_id);
    if (against && workload_of(against->params) != workload_of(s.params)) return true;
  }
  return false;
}

void compare_within_workloads(RunResult& run, const std::string& baseline_id_in, double same_threshold) {
  const std::string baseline_id = baseline_id_in.empty() ? run.baseline_id : baseline_id_in;
  const ScenarioResult* baseline = find_scenario(run, baseline_id);
  run.summary.reset();
  for (auto& s : run.scenarios) s.comparison.reset();

  SummarySection summary;
  for (const auto& s : run.scenarios) {
    ++summary.by_status[static_cast<int>(s.status)];
    if (s.contended()) ++summary.contended;
  }
  // Each workload against its own scenario with the baseline's settings: GPT-2 against
  // GPT-2 fp32/b32, never against ResNet-50's.
  const auto workloads = run_workloads(run);
  bool any_reference = false;
  for (const auto& workload : workloads) {
    WorkloadSummary w{workload, "", 0, std::nullopt};
    const ScenarioResult* reference = baseline ? workload_baseline(run, workload, baseline_id) : nullptr;
    std::vector<stats::RatioInterval> speedups;
    for (auto& s : run.scenarios) {
      if (!reference || !has_step_timing(s) || workload_of(s.params) != workload) continue;
      if (&s == reference) {
        s.comparison = ComparisonSection{s.id, 1.0, 1.0, 1.0, true, "baseline"};
        continue;
      }
      const auto r = per_sample_speedup(*reference, s);
      speedups.push_back(r);
      s.comparison = ComparisonSection{reference->id, r.ratio, r.low,
                                       r.high,        r.valid, stats::to_string(stats::classify(r, same_threshold))};
    }
    if (reference) {
      any_reference = true;
      w.baseline_id = reference->id;
      w.compared = static_cast<int>(speedups.size());
      // The baseline alone is, by definition, at speedup 1.
      const auto g = speedups.empty() ? stats::RatioInterval{} : stats::geometric_mean(speedups);
      w.geomean = GeomeanSpeedup{g.ratio, g.low, g.high, g.valid};
      summary.compared += w.compared;
    }
    if (baseline && workload == workload_of(baseline->params)) summary.geomean = w.geomean;
    if (workloads.size() > 1) summary.workloads.push_back(std::move(w));
  }
  // Without a workload baseline there is no speedup to summarise.
  if (any_reference) run.summary = summary;
}

void annotate_run(RunResult& run, const AnnotateOptions& options) {
  annotate_scaling(run);  // independent of any baseline
  compare_within_workloads(run, options.baseline_id, options.same_threshold);

  const Precision reference = loss_reference_precision();
  for (auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok || s.params.precision == reference) continue;
    const auto key = parity_key(s.params);
    const ScenarioResult* ref = nullptr;
    for (const auto& cand : run.scenarios)
      if (cand.status == ScenarioStatus::ok && cand.params.precision == reference && parity_key(cand.params) == key) {
        ref = &cand;
        break;
      }
    if (!ref) continue;
    const auto drift = loss_drift(s, *ref);
    s.loss_parity =
        LossParitySection{ref->id, drift.rel_drift, options.loss_tolerance, drift.rel_drift <= options.loss_tolerance,
                          static_cast<std::int64_t>(drift.steps_compared)};
  }
}

// ------------------------------------------------------------------ between two runs

EnvironmentMismatch::EnvironmentMismatch(const std::vector<std::string>& differences)
    : std::runtime_error("environments differ (different hardware): " + join_or_none(differences) +
                         "; pass --allow-env-mismatch to compare anyway"),
      differences_(differences) {}

std::vector<std::string> environment_field_differences(const nlohmann::json& old_env, const nlohmann::json& new_env,
                                                       const std::vector<std::string>& pointers) {
  std::vector<std::string> diffs;
  for (const auto& path : pointers) {
    const nlohmann::json::json_pointer ptr(path);
    const auto a = json_string_at(old_env, ptr), b = json_string_at(new_env, ptr);
    if (a != b) {
      std::string field = path.substr(1);
      std::replace(field.begin(), field.end(), '/', '.');
      diffs.push_back(field + ": '" + a + "' vs '" + b + "'");
    }
  }
  return diffs;
}

std::vector<std::string> environment_differences(const nlohmann::json& old_env, const nlohmann::json& new_env) {
  auto diffs = environment_field_differences(old_env, new_env, {"/cpu/model", "/device"});
  const auto ga = gpu_names(old_env), gb = gpu_names(new_env);
  if (ga != gb) diffs.push_back("gpu: [" + join_or_none(ga) + "] vs [" + join_or_none(gb) + "]");
  return diffs;
}

const NoiseFloor::Entry* NoiseFloor::find(const nlohmann::json& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

void to_json(nlohmann::json& j, const NoiseFloor& n) {
  j = {{"kind", "trainbench-noise-floor"},
       {"version", 2},
       {"source", n.source},
       {"max_plausible_pct", kMaxPlausibleNoisePct},
       {"scenarios", nlohmann::json::array()}};
  for (const auto& e : n.entries)
    j["scenarios"].push_back({{"id", e.id},
                              {"key", e.key},
                              {"abs_change_pct", e.abs_change_pct},
                              {"interval_width_pct", e.interval_width_pct}});
}

NoiseFloor load_noise_floor(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "noise-floor file");
  TB_CHECK_INPUT(j.is_object() && j.value("kind", "") == "trainbench-noise-floor", path, "kind",
                 "not a trainbench noise-floor file (write one with `trainbench compare --aa`)");
  TB_CHECK_INPUT(j.contains("scenarios") && j["scenarios"].is_array(), path, "scenarios", "missing or not an array");
  NoiseFloor n;
  std::size_t i = 0;
  for (const auto& s : j["scenarios"]) {
    const std::string field = "scenarios[" + std::to_string(i++) + "]";
    TB_CHECK_INPUT(s.is_object() && s.contains("key") && s["key"].is_object(), path, field + ".key",
                   "missing or not an object");
    TB_CHECK_INPUT(s.contains("abs_change_pct") && s["abs_change_pct"].is_number(), path, field + ".abs_change_pct",
                   "missing or not a number");
    const double pct = s["abs_change_pct"].get<double>();
    TB_CHECK_INPUT(std::isfinite(pct) && pct >= 0, path, field + ".abs_change_pct", "must be a non-negative number");
    if (pct > kMaxPlausibleNoisePct)
      throw ImplausibleNoise(path + ": " + field + ".abs_change_pct: " + std::to_string(pct) +
                             "% is not run-to-run noise (plausible up to " +
                             std::to_string(static_cast<int>(kMaxPlausibleNoisePct)) +
                             "%); re-measure the A/A pair on a quiet machine");
    n.entries.push_back({s.value("id", ""), s["key"], pct, s.value("interval_width_pct", 0.0)});
  }
  n.source = j.value("source", nlohmann::json::object());
  return n;
}

void save_noise_floor(const NoiseFloor& n, const std::string& path) {
  write_file_durably(path, nlohmann::json(n).dump(2) + '\n');
}

std::string ab_session_of(const RunResult& old_run, const RunResult& new_run) {
  const auto& old_side = old_run.provenance.ab_session;
  const auto& new_side = new_run.provenance.ab_session;
  if (!old_side || !new_side || old_side->id.empty() || old_side->id != new_side->id) return "";
  if (old_side->side != "old" || new_side->side != "new") return "";
  return old_side->id;
}

RunComparison compare_runs(const RunResult& old_run, const RunResult& new_run, const CompareOptions& options) {
  RunComparison out;
  out.old_run_id = old_run.run_id;
  out.new_run_id = new_run.run_id;
  auto diffs = environment_differences(old_run.environment, new_run.environment);
  if (!diffs.empty() && !options.allow_env_mismatch) throw EnvironmentMismatch(diffs);
  out.environment_differences = std::move(diffs);
  out.ab_session = ab_session_of(old_run, new_run);
  out.paired = !out.ab_session.empty();

  std::map<std::string, const ScenarioResult*> old_by_key;
  for (const auto& s : old_run.scenarios) old_by_key.emplace(scenario_key(s.params).dump(), &s);

  std::vector<stats::RatioInterval> speedups;
  std::map<std::string, bool> matched_old;
  // The family size of the gate: scenarios timed in both runs.
  int family = 0;
  for (const auto& s : new_run.scenarios) {
    const auto it = old_by_key.find(scenario_key(s.params).dump());
    if (it != old_by_key.end() && has_step_timing(*it->second) && has_step_timing(s)) ++family;
  }
  const double gate_coverage = 1.0 - 0.05 / std::max(1, family);
  for (const auto& s : new_run.scenarios) {
    const auto key = scenario_key(s.params);
    const auto it = old_by_key.find(key.dump());
    if (it == old_by_key.end()) {
      out.only_in_new.push_back(s.id);
      continue;
    }
    matched_old[it->first] = true;
    const ScenarioResult& o = *it->second;
    ScenarioComparison c;
    c.id = s.id;
    c.workload = workload_of(s.params);
    c.key = key;
    c.old_status = o.status;
    c.new_status = s.status;
    if (has_step_timing(o) && has_step_timing(s)) {
      c.compared = true;
      c.old_median_s = overall_median(o);
      c.new_median_s = overall_median(s);
      // Two runs are unpaired (no round of one is a round of the other) unless they are the two
      // sides of one A/B session, whose rounds were measured side by side.
      c.speedup = step_time_speedup(o, s, out.paired);
      c.change_pct = (1.0 / c.speedup.ratio - 1.0) * 100.0;
      c.verdict = stats::classify(c.speedup, options.same_threshold);
      speedups.push_back(c.speedup);
      ++out.compared;
      for (const auto* side : {&o, &s})
        if (side->contended()) {
          c.contended = true;
          if (!c.contention.empty()) c.contention += "; ";
          const std::string reason = side->disturbance_reason();
          c.contention += std::string(side == &o ? "old: " : "new: ") + (reason.empty() ? "contended" : reason);
        }
      if (options.fail_on_regression_pct) {
        c.gate_pct = s.params.gates.step_time_pct.value_or(*options.fail_on_regression_pct);
        if (const auto* floor = options.noise.find(key)) c.gate_pct = std::max(c.gate_pct, floor->abs_change_pct);
        const auto gate = step_time_speedup(o, s, out.paired, gate_coverage);
        c.gate_high = gate.high;
        const bool slower = gate.valid && gate.high < 1.0 - c.gate_pct / 100.0;
        // A loaded machine is not the code's fault: no regression is called on contended data.
        c.regression = slower && !c.contended;
        c.unjudged = !gate.valid && !c.contended;
        if (c.unjudged) out.unjudged.push_back(s.id);
        judge_matrix_gates(o, s, c);
        out.regression = out.regression || c.gate_failed();
        out.contended = out.contended || c.contended;
      }
    } else if (options.fail_on_regression_pct && o.status == ScenarioStatus::ok && s.status != ScenarioStatus::ok) {
      c.broken = true;
      out.broken = out.broken || !options.allow_broken;
    }
    out.scenarios.push_back(std::move(c));
  }
  for (const auto& s : old_run.scenarios)
    if (!matched_old.count(scenario_key(s.params).dump())) {
      out.only_in_old.push_back(s.id);
      if (s.status == ScenarioStatus::ok) out.missing_in_new.push_back(s.id);
    }
  if (options.fail_on_regression_pct && !out.missing_in_new.empty() && !options.allow_broken) out.broken = true;
  // One geomean per workload: a change of GPT-2 and one of ResNet-50 are separate answers.
  std::vector<std::string> order;
  std::map<std::string, std::vector<stats::RatioInterval>> by_workload;
  for (const auto& c : out.scenarios) {
    if (!c.compared) continue;
    if (!by_workload.count(c.workload)) order.push_back(c.workload);
    by_workload[c.workload].push_back(c.speedup);
  }
  if (order.size() == 1) out.geomean_speedup = stats::geometric_mean(speedups);
  if (order.size() > 1)
    for (const auto& w : order)
      out.workloads.push_back({w, static_cast<int>(by_workload[w].size()), stats::geometric_mean(by_workload[w])});
  return out;
}

void apply_sequential_verdicts(RunComparison& c, const std::map<std::string, SequentialRecord>& records,
                               double same_threshold) {
  c.sequential = true;
  c.regression = c.contended = false;
  c.unjudged.clear();
  c.undecided.clear();
  for (auto& s : c.scenarios) {
    const auto it = records.find(s.key.dump());
    if (s.compared && it != records.end()) {
      const SequentialRecord& r = it->second;
      s.sequential = r;
      s.unjudged = false;
      s.contended = r.end == "refused";
      if (s.contended) s.contention = r.contention;
      if (r.valid) {
        s.speedup = {.ratio = 1 / r.ratio, .low = 1 / r.high, .high = 1 / r.low, .valid = true};
        s.change_pct = (r.ratio - 1) * 100;
        s.verdict = stats::classify(s.speedup, same_threshold);
      }
      if (s.gate_pct > 0 || r.gate_pct > 0) {
        const double gate = r.gate_pct > 0 ? r.gate_pct : s.gate_pct;  // the one the verdict was taken at
        s.gate_pct = gate;
        s.gate_high = s.speedup.high;
        // The gate's own verdict: it was taken at a planned look, against its margin.
        const bool slower = r.valid && r.verdict == "slower";
        const bool not_slower = r.valid && r.verdict == "not slower";
        s.regression = slower && !s.contended;
        s.undecided = !slower && !not_slower && !s.contended;
        if (s.undecided) c.undecided.push_back(s.id);
      }
    }
    if (!s.compared) continue;
    c.regression = c.regression || s.gate_failed();
    c.contended = c.contended || s.contended;
    if (s.unjudged) c.unjudged.push_back(s.id);
  }
}

NoiseFloor make_noise_floor(const RunComparison& aa) {
  NoiseFloor n;
  std::vector<std::string> implausible, contended;
  for (const auto& c : aa.scenarios) {
    if (!c.compared) continue;
    if (c.contended) contended.push_back(c.id + " (" + c.contention + ")");
    if (std::abs(c.change_pct) > kMaxPlausibleNoisePct) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " %+.1f%%", c.change_pct);
      implausible.push_back(c.id + buf);
    }
    n.entries.push_back({c.id, c.key, std::abs(c.change_pct), (c.speedup.high - c.speedup.low) * 100.0});
  }
  if (n.entries.empty()) throw ImplausibleNoise("the A/A pair has no scenario measured in both runs");
  if (!implausible.empty())
    throw ImplausibleNoise("A/A changes beyond " + std::to_string(static_cast<int>(kMaxPlausibleNoisePct)) +
                           "% are not noise (was the machine loaded during one run?): " + join_or_none(implausible) +
                           "; no noise floor written");
  if (!contended.empty())
    throw ImplausibleNoise("contended measurements are not a noise floor: " + join_or_none(contended) +
                           "; no noise floor written");
  n.source = {{"old_run_id", aa.old_run_id}, {"new_run_id", aa.new_run_id}};
  return n;
}

void to_json(nlohmann::json& j, const RunComparison& c) {
  j = {{"old_run_id", c.old_run_id},
       {"new_run_id", c.new_run_id},
       {"only_in_old", c.only_in_old},
       {"only_in_new", c.only_in_new},
       {"environment_differences", c.environment_differences},
       {"missing_in_new", c.missing_in_new},
       {"compared", c.compared},
       {"regression", c.regression},
       {"broken", c.broken},
       {"contended", c.contended},
       {"paired", c.paired},
       {"unjudged", c.unjudged},
       {"scenarios", nlohmann::json::array()}};
  if (c.sequential) {
    j["sequential"] = true;
    j["undecided"] = c.undecided;
  }
  if (c.paired) j["ab_session"] = c.ab_session;
  for (const auto& s : c.scenarios) {
    nlohmann::json e = {{"id", s.id},
                        {"workload", s.workload},
                        {"key", s.key},
                        {"old_status", to_string(s.old_status)},
                        {"new_status", to_string(s.new_status)},
                        {"compared", s.compared}};
    if (s.compared) {
      e["old_median_s"] = s.old_median_s;
      e["new_median_s"] = s.new_median_s;
      e["speedup"] = s.speedup.ratio;
      e["ci_low"] = s.speedup.low;
      e["ci_high"] = s.speedup.high;
      e["change_pct"] = s.change_pct;
      e["verdict"] = stats::to_string(s.verdict);
      e["ci_valid"] = s.speedup.valid;
      e["regression"] = s.regression;
      e["contended"] = s.contended;
      if (!s.contention.empty()) e["contention"] = s.contention;
      if (s.gate_pct > 0) {
        e["gate_pct"] = s.gate_pct;
        e["gate_ci_high"] = s.gate_high;
        e["unjudged"] = s.unjudged;
      }
      if (s.sequential) {
        e["sequential"] = *s.sequential;
        e["undecided"] = s.undecided;
      }
      if (s.memory_gate_pct) {
        e["memory_gate"] = {{"pct", *s.memory_gate_pct},
                            {"old_peak_bytes", s.old_peak_bytes},
                            {"new_peak_bytes", s.new_peak_bytes},
                            {"failed", s.memory_regression}};
      }
      if (s.loss_gate)
        e["loss_gate"] = {{"drift", *s.loss_gate}, {"measured", s.loss_drift}, {"failed", s.loss_regression}};
    }
    if (s.broken) e["broken"] = true;
    j["scenarios"].push_back(e);
  }
  const auto geomean = [](const stats::RatioInterval& g) {
    return nlohmann::json{{"ratio", g.ratio}, {"ci_low", g.low}, {"ci_high", g.high}};
  };
  if (c.geomean_speedup) j["geomean_speedup"] = geomean(*c.geomean_speedup);
  if (!c.workloads.empty()) {
    j["workloads"] = nlohmann::json::array();
    for (const auto& w : c.workloads)
      j["workloads"].push_back(
          {{"workload", w.workload}, {"compared", w.compared}, {"geomean_speedup", geomean(w.geomean_speedup)}});
  }
}

}  // namespace tb
