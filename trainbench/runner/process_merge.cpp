#include <trainbench/runner/process_merge.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

#include <trainbench/measure/segment_stats.hpp>
#include <trainbench/measure/stats.hpp>

namespace tb {

namespace {

void absorb(ScenarioResult& into, const ScenarioResult& part) {
  into.step_times_s.insert(into.step_times_s.end(), part.step_times_s.begin(), part.step_times_s.end());
  into.segments.insert(into.segments.end(), part.segments.begin(), part.segments.end());
  into.measured_steps += part.measured_steps;
  into.warmup_steps += part.warmup_steps;
  into.wall_s += part.wall_s;
  if (part.contended() && !into.contended()) into.disturbance = part.disturbance;
  if (into.status == ScenarioStatus::ok && part.status != ScenarioStatus::ok) {
    into.status = part.status;
    into.message = part.message;
  }
}

void recompute_timing(ScenarioResult& s) {
  std::stable_sort(s.segments.begin(), s.segments.end(),
                   [](const Segment& a, const Segment& b) { return a.round < b.round; });
  if (s.segments.empty() || s.step_times_s.empty()) return;
  std::vector<double> medians;
  for (const auto& g : s.segments) medians.push_back(g.median_s);
  const double old_median = s.step_time_s.median;
  s.step_time_s = stats::summarize_segmented(s.step_times_s, medians);
  const double m = s.step_time_s.median;
  if (!(m > 0)) return;
  s.samples_per_s = static_cast<double>(std::max(1, s.params.effective_batch)) / m;
  if (old_median > 0) s.tokens_per_s *= old_median / m;
  s.converged =
      s.step_time_s.has_interval() && stats::relative_ci_halfwidth(s.step_time_s) <= s.params.stopping.target_rel_ci;
  s.stop_reason = s.step_time_s.has_interval() ? (s.converged ? "converged" : "rounds") : "no_interval";
}

}  // namespace

RunResult merge_process_parts(const std::vector<RunResult>& parts) {
  if (parts.empty()) throw std::invalid_argument("merge_process_parts: no parts");
  RunResult merged = parts.front();
  merged.scenarios.clear();
  std::map<std::string, std::size_t> index;  // scenario key -> position in merged.scenarios
  for (const auto& part : parts)
    for (const auto& s : part.scenarios) {
      const std::string key = scenario_key(s.params).dump();
      const auto it = index.find(key);
      if (it == index.end()) {
        index.emplace(key, merged.scenarios.size());
        merged.scenarios.push_back(s);
      } else {
        absorb(merged.scenarios[it->second], s);
      }
    }
  for (auto& s : merged.scenarios) recompute_timing(s);
  return merged;
}

}  // namespace tb
