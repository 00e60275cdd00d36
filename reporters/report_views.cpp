#include "reporters/report_views.hpp"

#include <algorithm>
#include <filesystem>

#include "reporters/report_format.hpp"

namespace tb::report {

namespace {

double number(const nlohmann::json& j, const char* key, double fallback = 0.0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<double>() : fallback;
}

std::string text(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : "";
}

const nlohmann::json* section(const nlohmann::json& extra, const char* key) {
  if (!extra.is_object()) return nullptr;
  auto it = extra.find(key);
  return (it != extra.end() && it->is_object()) ? &*it : nullptr;
}

}  // namespace

std::optional<ComparisonView> comparison_of(const ScenarioResult& s) {
  const auto* c = section(s.extra, "comparison");
  if (c == nullptr || !c->contains("speedup")) return std::nullopt;
  ComparisonView v;
  v.baseline_id = text(*c, "baseline_id");
  v.speedup = number(*c, "speedup");
  v.ci_low = number(*c, "ci_low", v.speedup);
  v.ci_high = number(*c, "ci_high", v.speedup);
  v.verdict = text(*c, "verdict");
  return v;
}

std::optional<LossParityView> loss_parity_of(const ScenarioResult& s) {
  const auto* p = section(s.extra, "loss_parity");
  if (p == nullptr) return std::nullopt;
  LossParityView v;
  v.reference_id = text(*p, "reference_id");
  v.rel_drift = number(*p, "rel_drift");
  v.tolerance = number(*p, "tolerance");
  auto ok = p->find("ok");
  v.ok = (ok != p->end() && ok->is_boolean()) ? ok->get<bool>() : v.rel_drift <= v.tolerance;
  return v;
}

StatusCounts status_counts(const RunResult& run) {
  StatusCounts c;
  if (const auto* s = section(run.extra, "summary"); s != nullptr && s->contains("ok")) {
    c.ok = static_cast<int>(number(*s, "ok"));
    c.failed = static_cast<int>(number(*s, "failed"));
    c.skipped = static_cast<int>(number(*s, "skipped"));
    c.oom = static_cast<int>(number(*s, "oom"));
    return c;
  }
  for (const auto& sc : run.scenarios) {
    switch (sc.status) {
      case ScenarioStatus::ok: ++c.ok; break;
      case ScenarioStatus::failed: ++c.failed; break;
      case ScenarioStatus::skipped: ++c.skipped; break;
      case ScenarioStatus::oom: ++c.oom; break;
    }
  }
  return c;
}

std::optional<GeomeanView> geomean_of(const RunResult& run) {
  const auto* s = section(run.extra, "summary");
  if (s == nullptr || !s->contains("geomean_speedup")) return std::nullopt;
  GeomeanView g;
  g.speedup = number(*s, "geomean_speedup");
  g.ci_low = number(*s, "geomean_ci_low", g.speedup);
  g.ci_high = number(*s, "geomean_ci_high", g.speedup);
  return g;
}

std::map<std::string, std::string> traces_of(const ScenarioResult& s) {
  std::map<std::string, std::string> traces;
  const auto* p = section(s.extra, "profile");
  if (p == nullptr) return traces;
  auto it = p->find("traces");
  if (it == p->end() || !it->is_object()) return traces;
  for (const auto& [kind, path] : it->items())
    if (path.is_string() && !path.get<std::string>().empty()) traces[kind] = path.get<std::string>();
  return traces;
}

std::string trace_link(const ReportContext& ctx, const std::string& trace_path) {
  namespace fs = std::filesystem;
  if (fs::path(trace_path).is_absolute() || ctx.results_dir == ctx.report_dir) return trace_path;
  const fs::path results = fs::absolute(ctx.results_dir.empty() ? "." : ctx.results_dir);
  const fs::path report = fs::absolute(ctx.report_dir.empty() ? "." : ctx.report_dir);
  const fs::path rel = (results / trace_path).lexically_normal().lexically_relative(report.lexically_normal());
  return rel.empty() ? trace_path : rel.generic_string();
}

const std::vector<std::string>& phase_order() {
  static const std::vector<std::string> order = {"data_wait", "h2d", "forward", "backward",
                                                 "optimizer"};
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
  for (const auto& name : phase_order()) out += (out.empty() ? "" : "/") + percent(phase_share(s, name));
  return out;
}

std::int64_t peak_memory_bytes(const ScenarioResult& s) {
  return s.memory.peak_allocated_bytes > 0 ? s.memory.peak_allocated_bytes : s.memory.peak_rss_bytes;
}

std::string speedup_cell(const ScenarioResult& s) {
  auto c = comparison_of(s);
  if (!c) return "-";
  if (c->verdict == "baseline") return "baseline";
  return times(c->speedup) + " [" + fixed(c->ci_low, 2) + ", " + fixed(c->ci_high, 2) + "] " +
         (c->verdict.empty() ? "-" : c->verdict);
}

std::string ci_halfwidth_ms(const ScenarioResult& s) {
  return "±" + millis((s.step_time_s.ci_high - s.step_time_s.ci_low) / 2.0);
}

}  // namespace tb::report
