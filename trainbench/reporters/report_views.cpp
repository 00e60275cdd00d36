#include <trainbench/reporters/report_views.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

std::vector<WorkloadGroup> workload_groups(const RunResult& run) {
  std::vector<WorkloadGroup> groups;
  for (const auto& s : run.scenarios) {
    const std::string w = workload_of(s.params);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const WorkloadGroup& g) { return g.workload == w; });
    if (it == groups.end()) it = groups.insert(groups.end(), WorkloadGroup{w, "", std::nullopt, {}});
    it->scenarios.push_back(&s);
    if (s.comparison && s.comparison->verdict == "baseline") it->baseline_id = s.id;
  }
  if (!run.summary) return groups;
  for (auto& g : groups) g.annotated = true;
  if (groups.size() == 1) groups.front().geomean = run.summary->geomean;
  for (const auto& w : run.summary->workloads)
    for (auto& g : groups)
      if (g.workload == w.workload) {
        g.geomean = w.geomean;
        if (!w.baseline_id.empty()) g.baseline_id = w.baseline_id;
      }
  return groups;
}

bool grouped_by_workload(const RunResult& run) {
  if (!shows_speedups(run)) return false;
  const std::string first = run.scenarios.empty() ? "" : workload_of(run.scenarios.front().params);
  return std::any_of(run.scenarios.begin(), run.scenarios.end(),
                     [&](const ScenarioResult& s) { return workload_of(s.params) != first; });
}

std::vector<WorkloadGroup> table_sections(const RunResult& run) {
  if (grouped_by_workload(run)) return workload_groups(run);
  WorkloadGroup all;
  for (const auto& s : run.scenarios) all.scenarios.push_back(&s);
  return {all};
}

std::string workload_heading(const WorkloadGroup& g) {
  if (g.baseline_id.empty() && !g.annotated) return g.workload;
  if (g.baseline_id.empty()) return g.workload + ": no scenario at the baseline's settings, no speed-ups";
  return g.workload + ": speed-ups against " + g.baseline_id;
}

std::string geomean_cell(const GeomeanSpeedup& g) {
  if (!g.ci_valid) return times(g.speedup) + " (no interval)";
  return times(g.speedup) + " [" + fixed(g.ci_low, 2) + ", " + fixed(g.ci_high, 2) + "]";
}

bool has_timing_columns(const ScenarioResult& s) { return has_step_times(s.status) && s.step_time_s.median > 0; }

std::string status_cell(const ScenarioResult& s) {
  std::string out = to_string(s.status);
  if (s.contended()) out += ", contended";
  return out;
}

std::map<std::string, std::string> traces_of(const ScenarioResult& s) {
  return s.profile ? s.profile->traces : std::map<std::string, std::string>{};
}

const RunCapacitySection& run_capacity_of(const RunResult& run) {
  static const RunCapacitySection kNone;
  return run.capacity ? *run.capacity : kNone;
}

bool has_capacity_findings(const RunCapacitySection& c) { return !c.batch_search.empty() || !c.memory_fit.empty(); }

std::string trace_link(const ReportContext& ctx, const std::string& trace_path) {
  namespace fs = std::filesystem;
  if (fs::path(trace_path).is_absolute() || ctx.results_dir == ctx.report_dir) return trace_path;
  const fs::path results = fs::absolute(ctx.results_dir.empty() ? "." : ctx.results_dir);
  const fs::path report = fs::absolute(ctx.report_dir.empty() ? "." : ctx.report_dir);
  const fs::path rel = (results / trace_path).lexically_normal().lexically_relative(report.lexically_normal());
  return rel.empty() ? trace_path : rel.generic_string();
}

bool trace_present(const ReportContext& ctx, const std::string& trace_path) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(trace_path).is_absolute()
                            ? fs::path(trace_path)
                            : fs::path(ctx.results_dir.empty() ? "." : ctx.results_dir) / trace_path;
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

const std::vector<std::string>& phase_order() {
  static const std::vector<std::string> order = {"data_wait", "h2d", "forward", "backward", "optimizer", "comm"};
  return order;
}

double phase_share(const ScenarioResult& s, const std::string& phase) {
  for (const auto& p : s.phases)
    if (p.name == phase) return p.share;
  return 0.0;
}

std::string phase_shares(const ScenarioResult& s) {
  if (s.phases.empty()) return "-";
  std::string out;
  for (const auto& name : phase_order()) {
    // comm (exposed communication) exists for data-parallel scenarios only.
    const bool present =
        std::any_of(s.phases.begin(), s.phases.end(), [&](const PhaseStat& p) { return p.name == name; });
    if (name == "comm" && !present) continue;
    out += (out.empty() ? "" : "/") + percent(phase_share(s, name));
  }
  return out;
}

std::string speedup_interval(const ComparisonSection& c) {
  if (!c.ci_valid) return times(c.speedup) + " [no CI]";
  return times(c.speedup) + " [" + fixed(c.ci_low, 2) + ", " + fixed(c.ci_high, 2) + "]";
}

std::string speedup_cell(const ScenarioResult& s) {
  const auto& c = s.comparison;
  if (!c) return "-";
  if (c->verdict == "baseline") return "baseline";
  return speedup_interval(*c) + " " + (c->verdict.empty() ? "-" : c->verdict);
}

std::string ci_halfwidth_ms(const ScenarioResult& s) {
  if (!s.step_time_s.has_interval()) return "n/a";
  return "±" + millis((s.step_time_s.ci_high - s.step_time_s.ci_low) / 2.0);
}

}  // namespace tb::report
