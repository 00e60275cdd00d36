#include <trainbench/reporters/csv_reporter.hpp>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/reporters/report_format.hpp>
#include <trainbench/reporters/report_views.hpp>

namespace tb {

namespace {

using report::exact;

std::string integer(std::int64_t v) { return std::to_string(v); }

// A scalar at extra[section][key] (or extra[section][key][sub]) as text; "" when absent.
std::string extra_scalar(const nlohmann::json& extra, const char* section, const char* key,
                         const char* sub = nullptr) {
  if (!extra.is_object() || !extra.contains(section)) return "";
  const auto& s = extra.at(section);
  if (!s.is_object() || !s.contains(key)) return "";
  const nlohmann::json* v = &s.at(key);
  if (sub != nullptr) {
    if (!v->is_object() || !v->contains(sub)) return "";
    v = &v->at(sub);
  }
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  if (v->is_number_integer()) return std::to_string(v->get<std::int64_t>());
  if (v->is_number()) return exact(v->get<double>());
  return "";
}

}  // namespace

const std::vector<std::string>& CsvReporter::columns() {
  static const std::vector<std::string> cols = [] {
    std::vector<std::string> c = {"id", "status", "message"};
    for (const ScenarioAxis& axis : scenario_axes()) c.push_back(axis.name);
    c.insert(c.end(), {"effective_batch", "learning_rate", "seed",
        "dataset_options", "model_options", "warmup_steps", "measured_steps", "stop_reason",
        "step_time_n", "step_time_median_s", "step_time_mean_s", "step_time_stddev_s",
        "step_time_min_s", "step_time_max_s", "step_time_p5_s", "step_time_p25_s",
        "step_time_p75_s", "step_time_p95_s", "step_time_p99_s", "step_time_ci_low_s",
        "step_time_ci_high_s", "step_time_ci_method", "segments", "samples_per_s", "tokens_per_s"});
    for (const auto& p : report::phase_order()) {
      c.push_back("phase_" + p + "_median_s");
      c.push_back("phase_" + p + "_mean_s");
      c.push_back("phase_" + p + "_share");
    }
    for (const char* name :
         {"loss_start", "loss_end", "skipped_steps", "final_loss_scale", "peak_allocated_bytes",
          "peak_reserved_bytes", "alloc_retries", "peak_rss_bytes", "wall_s", "contended",
          "other_cpu_cores", "baseline_id",
          "speedup", "speedup_ci_low", "speedup_ci_high", "verdict", "loss_parity_reference_id",
          "loss_parity_rel_drift", "loss_parity_tolerance", "loss_parity_ok", "flops_per_sample",
          "achieved_flops_per_s", "peak_flops_per_s", "mfu", "mfu_error"})
      c.push_back(name);
    return c;
  }();
  return cols;
}

std::string CsvReporter::quote(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void CsvReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  std::ostream& os = *ctx.out;
  auto write_row = [&os](const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) os << (i ? "," : "") << quote(fields[i]);
    os << "\r\n";
  };
  write_row(columns());
  for (const auto& s : run.scenarios) {
    const auto& p = s.params;
    const auto& d = s.step_time_s;
    std::vector<std::string> row = {s.id, to_string(s.status), s.message};
    for (const ScenarioAxis& axis : scenario_axes()) row.push_back(axis_text(axis.value(p)));
    row.insert(row.end(), {
        integer(p.effective_batch), exact(p.learning_rate), std::to_string(p.seed),
        p.dataset_options.dump(), p.model_options.dump(), integer(s.warmup_steps),
        integer(s.measured_steps), s.stop_reason, integer(static_cast<std::int64_t>(d.n)),
        exact(d.median), exact(d.mean), exact(d.stddev), exact(d.min), exact(d.max), exact(d.p5),
        exact(d.p25), exact(d.p75), exact(d.p95), exact(d.p99),
        d.has_interval() ? exact(d.ci_low) : "", d.has_interval() ? exact(d.ci_high) : "",
        d.ci_method, integer(static_cast<std::int64_t>(s.segments.size())),
        exact(s.samples_per_s), exact(s.tokens_per_s)});
    for (const auto& name : report::phase_order()) {
      const PhaseStat* found = nullptr;
      for (const auto& ph : s.phases)
        if (ph.name == name) found = &ph;
      row.push_back(found ? exact(found->median_s) : "");
      row.push_back(found ? exact(found->mean_s) : "");
      row.push_back(found ? exact(found->share) : "");
    }
    const auto& x = s.extra;
    for (const std::string& v :
         {exact(s.loss_start), exact(s.loss_end), integer(s.skipped_steps),
          exact(s.final_loss_scale), integer(s.memory.peak_allocated_bytes),
          integer(s.memory.peak_reserved_bytes), integer(s.memory.alloc_retries),
          integer(s.memory.peak_rss_bytes), exact(s.wall_s), std::string(s.contended() ? "true" : "false"),
          s.disturbance.contains("other_cpu_cores") ? exact(s.disturbance.value("other_cpu_cores", 0.0)) : "",
          extra_scalar(x, "comparison", "baseline_id"), extra_scalar(x, "comparison", "speedup"),
          extra_scalar(x, "comparison", "ci_low"), extra_scalar(x, "comparison", "ci_high"),
          extra_scalar(x, "comparison", "verdict"), extra_scalar(x, "loss_parity", "reference_id"),
          extra_scalar(x, "loss_parity", "rel_drift"), extra_scalar(x, "loss_parity", "tolerance"),
          extra_scalar(x, "loss_parity", "ok"),
          extra_scalar(x, "capacity", "flops_per_sample", "total"),
          extra_scalar(x, "capacity", "achieved_flops_per_s"),
          extra_scalar(x, "capacity", "peak_flops_per_s"), extra_scalar(x, "capacity", "mfu")})
      row.push_back(v);
    // An MFU above 100% is a measurement error (capacity.mfu_error, or derived for older files).
    const auto capacity = report::capacity_of(s);
    row.push_back(capacity && capacity->peak_flops_per_s > 0 ? capacity->mfu_error : "");
    write_row(row);
  }
}

}  // namespace tb
