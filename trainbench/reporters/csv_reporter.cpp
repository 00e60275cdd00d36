#include <trainbench/reporters/csv_reporter.hpp>

#include <trainbench/reporters/findings.hpp>

#include <algorithm>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/reporters/report_format.hpp>
#include <trainbench/reporters/report_views.hpp>

namespace tb {

namespace {

using report::exact;

std::string integer(std::int64_t v) { return std::to_string(v); }
std::string flag(bool v) { return v ? "true" : "false"; }

// A field of an optional section, "" when the section is absent.
template <typename Section, typename Cell>
CsvColumn section_column(std::string name, const std::optional<Section> ScenarioResult::*section, Cell cell) {
  return {std::move(name), [section, cell](const ScenarioResult& s) {
            const auto& found = s.*section;
            return found ? std::string(cell(*found)) : std::string();
          }};
}

// Fields of the step-time distribution, by name and member.
CsvColumn distribution_column(std::string name, double Distribution::*field) {
  return {std::move(name), [field](const ScenarioResult& s) { return exact(s.step_time_s.*field); }};
}

// A phase's figure, "" when the scenario has no such phase.
CsvColumn phase_column(const std::string& phase, const char* suffix, double PhaseStat::*field) {
  return {"phase_" + phase + suffix, [phase, field](const ScenarioResult& s) {
            for (const auto& p : s.phases)
              if (p.name == phase) return exact(p.*field);
            return std::string();
          }};
}

std::vector<CsvColumn> build_columns() {
  using S = const ScenarioResult&;
  std::vector<CsvColumn> c = {
      {"id", [](S s) { return s.id; }},
      {"status", [](S s) { return std::string(to_string(s.status)); }},
      {"message", [](S s) { return s.message; }},
  };
  for (const ScenarioAxis& axis : scenario_axes())
    c.push_back({axis.name, [&axis](S s) { return axis_text(axis.value(s.params)); }});
  const std::vector<CsvColumn> middle = {
      {"effective_batch", [](S s) { return integer(s.params.effective_batch); }},
      {"learning_rate", [](S s) { return exact(s.params.learning_rate); }},
      {"seed", [](S s) { return std::to_string(s.params.seed); }},
      {"dataset_options", [](S s) { return s.params.dataset_options.dump(); }},
      {"model_options", [](S s) { return s.params.model_options.dump(); }},
      {"warmup_steps", [](S s) { return integer(s.warmup_steps); }},
      {"measured_steps", [](S s) { return integer(s.measured_steps); }},
      {"stop_reason", [](S s) { return s.stop_reason; }},
      {"step_time_n", [](S s) { return integer(static_cast<std::int64_t>(s.step_time_s.n)); }},
      distribution_column("step_time_median_s", &Distribution::median),
      distribution_column("step_time_mean_s", &Distribution::mean),
      distribution_column("step_time_stddev_s", &Distribution::stddev),
      distribution_column("step_time_min_s", &Distribution::min),
      distribution_column("step_time_max_s", &Distribution::max),
      distribution_column("step_time_p5_s", &Distribution::p5),
      distribution_column("step_time_p25_s", &Distribution::p25),
      distribution_column("step_time_p75_s", &Distribution::p75),
      distribution_column("step_time_p95_s", &Distribution::p95),
      distribution_column("step_time_p99_s", &Distribution::p99),
      // No interval is an empty cell, never a zero-width one.
      {"step_time_ci_low_s", [](S s) { return s.step_time_s.has_interval() ? exact(s.step_time_s.ci_low) : ""; }},
      {"step_time_ci_high_s", [](S s) { return s.step_time_s.has_interval() ? exact(s.step_time_s.ci_high) : ""; }},
      {"step_time_ci_method", [](S s) { return s.step_time_s.ci_method; }},
      {"segments", [](S s) { return integer(static_cast<std::int64_t>(s.segments.size())); }},
      {"samples_per_s", [](S s) { return exact(s.samples_per_s); }},
      {"tokens_per_s", [](S s) { return exact(s.tokens_per_s); }},
  };
  c.insert(c.end(), middle.begin(), middle.end());
  for (const auto& phase : report::phase_order()) {
    c.push_back(phase_column(phase, "_median_s", &PhaseStat::median_s));
    c.push_back(phase_column(phase, "_mean_s", &PhaseStat::mean_s));
    c.push_back(phase_column(phase, "_share", &PhaseStat::share));
  }
  c.push_back({"bottleneck", [](S s) { return report::bottleneck_cell(s); }});
  using Cmp = const ComparisonSection&;
  using Parity = const LossParitySection&;
  using Cap = const ScenarioCapacitySection&;
  using Dp = const DataParallelSection&;
  const std::vector<CsvColumn> tail = {
      {"loss_start", [](S s) { return exact(s.loss_start); }},
      {"loss_end", [](S s) { return exact(s.loss_end); }},
      {"skipped_steps", [](S s) { return integer(s.skipped_steps); }},
      {"final_loss_scale", [](S s) { return exact(s.final_loss_scale); }},
      {"peak_allocated_bytes", [](S s) { return integer(s.memory.peak_allocated_bytes); }},
      {"peak_reserved_bytes", [](S s) { return integer(s.memory.peak_reserved_bytes); }},
      {"alloc_retries", [](S s) { return integer(s.memory.alloc_retries); }},
      {"peak_rss_bytes", [](S s) { return integer(s.memory.peak_rss_bytes); }},
      {"wall_s", [](S s) { return exact(s.wall_s); }},
      {"contended", [](S s) { return flag(s.contended()); }},
      {"other_cpu_cores",
       [](S s) { return s.disturbance && s.disturbance->available ? exact(s.disturbance->other_cpu_cores) : ""; }},
      section_column("baseline_id", &ScenarioResult::comparison, [](Cmp c) { return c.baseline_id; }),
      section_column("speedup", &ScenarioResult::comparison, [](Cmp c) { return exact(c.speedup); }),
      section_column("speedup_ci_low", &ScenarioResult::comparison, [](Cmp c) { return exact(c.ci_low); }),
      section_column("speedup_ci_high", &ScenarioResult::comparison, [](Cmp c) { return exact(c.ci_high); }),
      section_column("verdict", &ScenarioResult::comparison, [](Cmp c) { return c.verdict; }),
      section_column("loss_parity_reference_id", &ScenarioResult::loss_parity, [](Parity p) { return p.reference_id; }),
      section_column("loss_parity_rel_drift", &ScenarioResult::loss_parity,
                     [](Parity p) { return exact(p.rel_drift); }),
      section_column("loss_parity_tolerance", &ScenarioResult::loss_parity,
                     [](Parity p) { return exact(p.tolerance); }),
      section_column("loss_parity_ok", &ScenarioResult::loss_parity, [](Parity p) { return flag(p.ok); }),
      section_column("flops_per_sample", &ScenarioResult::capacity,
                     [](Cap c) { return c.flops_per_sample ? exact(c.flops_per_sample->total()) : ""; }),
      section_column("achieved_flops_per_s", &ScenarioResult::capacity,
                     [](Cap c) { return exact(c.achieved_flops_per_s); }),
      // Peak and MFU exist only when a peak was known.
      section_column("peak_flops_per_s", &ScenarioResult::capacity,
                     [](Cap c) { return c.peak_flops_per_s > 0 ? exact(c.peak_flops_per_s) : ""; }),
      section_column("mfu", &ScenarioResult::capacity,
                     [](Cap c) { return c.peak_flops_per_s > 0 ? exact(c.mfu) : ""; }),
      // An MFU above 100% is a measurement error (capacity.mfu_error, or derived for older files).
      section_column("mfu_error", &ScenarioResult::capacity,
                     [](Cap c) { return c.peak_flops_per_s > 0 ? c.mfu_error : ""; }),
      // Data-parallel scenarios (extra.data_parallel); samples_per_s above is their global one.
      section_column("comm_backend", &ScenarioResult::data_parallel, [](Dp d) { return d.backend; }),
      section_column("global_batch", &ScenarioResult::data_parallel, [](Dp d) { return integer(d.global_batch); }),
      section_column("scaling_efficiency", &ScenarioResult::data_parallel,
                     [](Dp d) { return d.efficiency ? exact(*d.efficiency) : ""; }),
      section_column("scaling_reference_id", &ScenarioResult::data_parallel,
                     [](Dp d) { return d.efficiency_reference_id; }),
      section_column("gradient_bytes", &ScenarioResult::data_parallel, [](Dp d) { return integer(d.gradient_bytes); }),
      section_column("exposed_comm_s", &ScenarioResult::data_parallel, [](Dp d) { return exact(d.exposed_comm_s); }),
      section_column("overlapped_comm_s", &ScenarioResult::data_parallel,
                     [](Dp d) { return exact(d.overlapped_comm_s); }),
      section_column("allreduce_s", &ScenarioResult::data_parallel, [](Dp d) { return exact(d.allreduce_s); }),
      section_column("algbw_GBps", &ScenarioResult::data_parallel,
                     [](Dp d) { return exact(d.algbw_bytes_per_s / 1e9); }),
      section_column("busbw_GBps", &ScenarioResult::data_parallel,
                     [](Dp d) { return exact(d.busbw_bytes_per_s / 1e9); }),
      section_column("comm_latency_s", &ScenarioResult::data_parallel, [](Dp d) { return exact(d.latency_s); }),
      // The straggler: every rank waits for the slowest compute before the last bucket reduces.
      section_column("slowest_rank_compute_s", &ScenarioResult::data_parallel,
                     [](Dp d) {
                       double slowest = 0;
                       for (const auto& r : d.ranks) slowest = std::max(slowest, r.compute_s);
                       return d.ranks.empty() ? std::string() : exact(slowest);
                     }),
  };
  c.insert(c.end(), tail.begin(), tail.end());
  return c;
}

}  // namespace

const std::vector<CsvColumn>& CsvReporter::column_table() {
  static const std::vector<CsvColumn> table = build_columns();
  return table;
}

const std::vector<std::string>& CsvReporter::columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& column : column_table()) out.push_back(column.name);
    return out;
  }();
  return names;
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
  const auto& table = column_table();
  for (std::size_t i = 0; i < table.size(); ++i) os << (i ? "," : "") << quote(table[i].name);
  os << "\r\n";
  for (const auto& s : run.scenarios) {
    for (std::size_t i = 0; i < table.size(); ++i) os << (i ? "," : "") << quote(table[i].cell(s));
    os << "\r\n";
  }
}

}  // namespace tb
