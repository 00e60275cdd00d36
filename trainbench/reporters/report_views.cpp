#include <trainbench/reporters/report_views.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <trainbench/capacity/utilization.hpp>
#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

namespace {

const nlohmann::json* section(const nlohmann::json& extra, const char* key) {
  if (!extra.is_object()) return nullptr;
  auto it = extra.find(key);
  return (it != extra.end() && it->is_object()) ? &*it : nullptr;
}

std::optional<double> optional_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

int count(const nlohmann::json& j, const char* key) {
  return static_cast<int>(std::clamp(field_number(j, key), 0.0, 1.0e9));
}

// The object entries of an array-valued key ({} and non-objects skipped).
std::vector<const nlohmann::json*> entries(const nlohmann::json* parent, const char* key) {
  std::vector<const nlohmann::json*> out;
  if (parent == nullptr) return out;
  auto it = parent->find(key);
  if (it == parent->end() || !it->is_array()) return out;
  for (const auto& e : *it)
    if (e.is_object()) out.push_back(&e);
  return out;
}

}  // namespace

double field_number(const nlohmann::json& j, const char* key, double fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<double>() : fallback;
}

std::string field_text(const nlohmann::json& j, const char* key, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : fallback;
}

// Clamped first: a float beyond the integer's range (1e300 in an edited file) is undefined
// behaviour in a cast, and llround's result for it is unspecified.
std::int64_t field_integer(const nlohmann::json& j, const char* key, std::int64_t fallback) {
  const auto v = optional_number(j, key);
  return v ? std::llround(std::clamp(*v, -9.0e18, 9.0e18)) : fallback;
}

bool field_flag(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::optional<ComparisonView> comparison_of(const ScenarioResult& s) {
  const auto* c = section(s.extra, "comparison");
  if (c == nullptr || !c->contains("speedup")) return std::nullopt;
  ComparisonView v;
  v.baseline_id = field_text(*c, "baseline_id");
  v.speedup = field_number(*c, "speedup");
  v.ci_low = field_number(*c, "ci_low", v.speedup);
  v.ci_high = field_number(*c, "ci_high", v.speedup);
  if (auto it = c->find("ci_valid"); it != c->end() && it->is_boolean()) v.ci_valid = it->get<bool>();
  v.verdict = field_text(*c, "verdict");
  return v;
}

std::optional<LossParityView> loss_parity_of(const ScenarioResult& s) {
  const auto* p = section(s.extra, "loss_parity");
  if (p == nullptr) return std::nullopt;
  LossParityView v;
  v.reference_id = field_text(*p, "reference_id");
  v.rel_drift = field_number(*p, "rel_drift");
  v.tolerance = field_number(*p, "tolerance");
  auto ok = p->find("ok");
  v.ok = (ok != p->end() && ok->is_boolean()) ? ok->get<bool>() : v.rel_drift <= v.tolerance;
  return v;
}

StatusCounts status_counts(const RunResult& run) {
  StatusCounts c;
  if (const auto* s = section(run.extra, "summary"); s != nullptr && s->contains("ok")) {
    c.ok = count(*s, "ok");
    c.failed = count(*s, "failed");
    c.skipped = count(*s, "skipped");
    c.oom = count(*s, "oom");
    c.diverged = count(*s, "diverged");
    c.interrupted = count(*s, "interrupted");
    c.crashed = count(*s, "crashed");  // 0 in files from before the status
    c.contended = count(*s, "contended");
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

std::optional<GeomeanView> geomean_of(const RunResult& run) {
  const auto* s = section(run.extra, "summary");
  if (s == nullptr || !s->contains("geomean_speedup")) return std::nullopt;
  GeomeanView g;
  g.speedup = field_number(*s, "geomean_speedup");
  g.ci_low = field_number(*s, "geomean_ci_low", g.speedup);
  g.ci_high = field_number(*s, "geomean_ci_high", g.speedup);
  if (auto it = s->find("geomean_ci_valid"); it != s->end() && it->is_boolean())
    g.ci_valid = it->get<bool>();
  return g;
}

std::string geomean_cell(const GeomeanView& g) {
  if (!g.ci_valid) return times(g.speedup) + " (no interval)";
  return times(g.speedup) + " [" + fixed(g.ci_low, 2) + ", " + fixed(g.ci_high, 2) + "]";
}

bool has_timing_columns(const ScenarioResult& s) {
  return (s.status == ScenarioStatus::ok || s.status == ScenarioStatus::diverged) &&
         s.step_time_s.median > 0;
}

std::string status_cell(const ScenarioResult& s) {
  std::string out = to_string(s.status);
  if (s.contended()) out += ", contended";
  return out;
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

std::optional<ProfileView> profile_of(const ScenarioResult& s) {
  const auto* p = section(s.extra, "profile");
  if (p == nullptr) return std::nullopt;
  ProfileView v;
  v.traces = traces_of(s);
  if (optional_number(*p, "window_steps")) v.window_steps = field_integer(*p, "window_steps");
  v.overhead_vs_timed = optional_number(*p, "overhead_vs_timed");
  return v;
}

std::optional<ScenarioCapacityView> capacity_of(const ScenarioResult& s) {
  const auto* c = section(s.extra, "capacity");
  if (c == nullptr) return std::nullopt;
  ScenarioCapacityView v;
  if (const auto* f = section(*c, "flops_per_sample")) v.flops_per_sample = optional_number(*f, "total");
  v.achieved_flops_per_s = field_number(*c, "achieved_flops_per_s");
  v.peak_flops_per_s = field_number(*c, "peak_flops_per_s");
  v.mfu = field_number(*c, "mfu");
  v.peak_source = field_text(*c, "peak_source");
  v.mfu_error = field_text(*c, "mfu_error");
  if (v.mfu_error.empty() && v.peak_flops_per_s > 0) v.mfu_error = capacity::mfu_error(v.mfu);
  if (const auto* p = section(*c, "projection")) {
    ProjectionView pv;
    pv.target_samples = field_number(*p, "target_samples");
    pv.time_s = field_number(*p, "time_s");
    pv.ci_low_s = field_number(*p, "ci_low_s", pv.time_s);
    pv.ci_high_s = field_number(*p, "ci_high_s", pv.time_s);
    pv.device_hours = field_number(*p, "device_hours");
    pv.cost = optional_number(*p, "cost");
    v.projection = pv;
  }
  return v;
}

RunCapacityView run_capacity_of(const RunResult& run) {
  RunCapacityView v;
  const auto* c = section(run.extra, "capacity");
  if (c == nullptr) return v;
  v.memory_limit_bytes = field_integer(*c, "memory_limit_bytes");
  v.limit_source = field_text(*c, "limit_source");
  for (const auto* e : entries(c, "batch_search")) {
    BatchSearchView b;
    b.model = field_text(*e, "model");
    b.precision = field_text(*e, "precision");
    b.max_batch = field_integer(*e, "max_batch");
    b.best_batch = field_integer(*e, "best_batch");
    b.best_samples_per_s = field_number(*e, "best_samples_per_s");
    b.hit_limit = field_flag(*e, "hit_limit");
    for (const auto* p : entries(e, "probes")) b.probes.emplace_back(field_integer(*p, "batch"), field_flag(*p, "fits"));
    v.batch_search.push_back(std::move(b));
  }
  for (const auto* e : entries(c, "memory_fit")) {
    MemoryFitView m;
    m.model = field_text(*e, "model");
    m.precision = field_text(*e, "precision");
    m.fixed_bytes = field_number(*e, "fixed_bytes");
    m.per_sample_bytes = field_number(*e, "per_sample_bytes");
    m.r2 = optional_number(*e, "r2");
    if (optional_number(*e, "memory_bytes")) m.memory_bytes = field_integer(*e, "memory_bytes");
    m.predicted_max_batch = field_integer(*e, "predicted_max_batch");
    v.memory_fit.push_back(std::move(m));
  }
  return v;
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

std::string speedup_interval(const ComparisonView& c) {
  if (!c.ci_valid) return times(c.speedup) + " [no CI]";
  return times(c.speedup) + " [" + fixed(c.ci_low, 2) + ", " + fixed(c.ci_high, 2) + "]";
}

std::string speedup_cell(const ScenarioResult& s) {
  auto c = comparison_of(s);
  if (!c) return "-";
  if (c->verdict == "baseline") return "baseline";
  return speedup_interval(*c) + " " + (c->verdict.empty() ? "-" : c->verdict);
}

std::string ci_halfwidth_ms(const ScenarioResult& s) {
  if (!s.step_time_s.has_interval()) return "n/a";
  return "±" + millis((s.step_time_s.ci_high - s.step_time_s.ci_low) / 2.0);
}

}  // namespace tb::report
