#include <trainbench/reporters/headline.hpp>

#include <algorithm>

namespace tb::report {

namespace {

HeadlineGeomean geomean_line(const RunResult& run) {
  HeadlineGeomean line;
  line.shown = shows_speedups(run);
  if (!line.shown) return line;
  if (grouped_by_workload(run)) {
    for (const WorkloadGroup& g : workload_groups(run))
      line.workloads.push_back(
          {g.workload, g.geomean && !g.baseline_id.empty() ? geomean_cell(*g.geomean) : "-", workload_geomean_text(g)});
    return line;
  }
  if (run.summary && run.summary->geomean) line.value = geomean_cell(*run.summary->geomean);
  return line;
}

std::vector<CountPart> count_parts(const StatusCounts& c, int loss_parity_warnings) {
  std::vector<CountPart> parts = {{c.ok, "ok"}, {c.failed, "failed"}, {c.skipped, "skipped"}, {c.oom, "oom"}};
  const auto if_any = [&](int count, std::string label, bool caution) {
    if (count > 0) parts.push_back({count, std::move(label), caution});
  };
  if_any(c.diverged, "diverged", false);
  if_any(c.interrupted, "interrupted", false);
  if_any(c.crashed, "crashed", false);
  if_any(c.contended, "contended", true);
  if_any(loss_parity_warnings, loss_parity_warnings == 1 ? "loss-parity warning" : "loss-parity warnings", true);
  return parts;
}

}  // namespace

std::string reason_of(const ScenarioResult& s) { return s.message.empty() ? "(no reason recorded)" : s.message; }

StatusCounts status_counts(const RunResult& run) {
  StatusCounts c;
  if (run.summary) {
    const auto& s = *run.summary;
    c.ok = s.count(ScenarioStatus::ok);
    c.failed = s.count(ScenarioStatus::failed);
    c.skipped = s.count(ScenarioStatus::skipped);
    c.oom = s.count(ScenarioStatus::oom);
    c.diverged = s.count(ScenarioStatus::diverged);
    c.interrupted = s.count(ScenarioStatus::interrupted);
    c.crashed = s.count(ScenarioStatus::crashed);
    c.contended = s.contended;
    return c;
  }
  for (const auto& sc : run.scenarios) {
    switch (sc.status) {
      case ScenarioStatus::ok: ++c.ok; break;
      case ScenarioStatus::failed: ++c.failed; break;
      case ScenarioStatus::skipped: ++c.skipped; break;
      case ScenarioStatus::oom: ++c.oom; break;
      case ScenarioStatus::diverged: ++c.diverged; break;
      case ScenarioStatus::interrupted: ++c.interrupted; break;
      case ScenarioStatus::crashed: ++c.crashed; break;
    }
    if (sc.contended()) ++c.contended;
  }
  return c;
}

std::vector<SkipGroup> skip_groups(const RunResult& run) {
  std::vector<SkipGroup> groups;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::skipped) continue;
    const std::string reason = reason_of(s);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const SkipGroup& g) { return g.reason == reason; });
    if (it == groups.end()) it = groups.insert(groups.end(), SkipGroup{reason, {}});
    it->ids.push_back(s.id);
  }
  return groups;
}

std::string workload_geomean_text(const WorkloadGroup& g) {
  if (g.baseline_id.empty() && !g.annotated) return "-";
  if (g.baseline_id.empty()) return "- (no scenario at the baseline's settings)";
  return (g.geomean ? geomean_cell(*g.geomean) : std::string("-")) + " against " + g.baseline_id;
}

Headline headline_of(const RunResult& run) {
  Headline h;
  h.counts = status_counts(run);
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) h.notes.push_back({ScenarioNote::Kind::status, &s, reason_of(s)});
    if (s.contended()) h.notes.push_back({ScenarioNote::Kind::contended, &s, s.disturbance_reason()});
    if (loss_drifted(s.loss_parity)) h.drifted.push_back(&s);
  }
  h.loss_parity_warnings = static_cast<int>(h.drifted.size());
  const StatusCounts& c = h.counts;
  h.trouble = c.failed > 0 || c.oom > 0 || c.diverged > 0 || c.interrupted > 0 || c.crashed > 0 || c.contended > 0 ||
              h.loss_parity_warnings > 0;
  h.count_parts = count_parts(c, h.loss_parity_warnings);
  h.geomean = geomean_line(run);
  h.skips = skip_groups(run);
  return h;
}

}  // namespace tb::report
