#include <trainbench/reporters/html_reporter.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <trainbench/build_config.hpp>
#include <trainbench/capacity/utilization.hpp>
#include <trainbench/reporters/capacity_tables.hpp>
#include <trainbench/reporters/energy_view.hpp>
#include <trainbench/reporters/findings.hpp>
#include <trainbench/reporters/headline.hpp>
#include <trainbench/reporters/html_chart_data.hpp>
#include <trainbench/reporters/html_page.hpp>
#include <trainbench/reporters/loss_at_step.hpp>
#include <trainbench/reporters/report_format.hpp>
#include <trainbench/reporters/report_views.hpp>
#include <trainbench/reporters/scaling_tables.hpp>
#include <trainbench/support/join.hpp>

namespace tb {

namespace {

using namespace report;

using html_page::esc;
using html_page::script_safe;

std::string num_td(const std::string& v) { return "<td class=\"num\">" + esc(v) + "</td>"; }
std::string td(const std::string& v) { return "<td>" + esc(v) + "</td>"; }

// A fitted byte count (a double) truncated to whole bytes; clamped, since casting a double
// beyond the integer's range (1e300 in an edited file) is undefined behaviour.
std::int64_t whole_bytes(double v) { return static_cast<std::int64_t>(std::clamp(v, -9.0e18, 9.0e18)); }

// Scalar JSON value for a table cell.
std::string scalar(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) return exact(v.get<double>());
  return v.dump();
}

// The verdict paragraph: geomean speed-up (per workload when there are several), then the status
// counts, cautions highlighted.
void render_verdict(std::ostream& os, const Headline& headline) {
  os << "<p class=\"verdict" << (headline.trouble ? " trouble" : "") << "\" id=\"tb-verdict\">";
  const auto& geomean = headline.geomean;
  if (geomean.per_workload()) {
    // A geomean per workload, each against its own baseline.
    os << "geomean speed-up";
    for (const auto& w : geomean.workloads)
      os << " " << esc(w.workload) << " <strong>" << esc(w.value) << "</strong> ·";
    os << " ";
  } else if (geomean.shown) {
    os << "geomean speed-up " << (geomean.value ? "<strong>" + esc(*geomean.value) + "</strong>" : std::string("-"))
       << " · ";
  }
  std::vector<std::string> counts;
  for (const auto& part : headline.count_parts) {
    const std::string text = std::to_string(part.count) + " " + part.label;
    counts.push_back(part.caution ? "<span class=\"warn\">" + text + "</span>" : text);
  }
  os << join(counts, " · ") << "</p>\n";
}

// The warnings list: loss drift, scenarios that did not finish ok, skips by reason, contention.
void render_warnings(std::ostream& os, const Headline& headline) {
  std::ostringstream items;
  for (const ScenarioResult* s : headline.drifted) {
    const auto& lp = *s->loss_parity;
    items << "<li><span class=\"warn\">⚠ loss parity</span>: <code>" << esc(s->id) << "</code> drifted "
          << percent(lp.rel_drift, 2) << "% from <code>" << esc(lp.reference_id) << "</code> (tolerance "
          << percent(lp.tolerance, 2) << "%)</li>\n";
  }
  for (const auto& note : headline.notes) {
    if (note.kind != ScenarioNote::Kind::status || note.scenario->status == ScenarioStatus::skipped) continue;
    items << "<li><span class=\"bad\">" << to_string(note.scenario->status) << "</span>: <code>"
          << esc(note.scenario->id) << "</code>: " << esc(note.reason) << "</li>\n";
  }
  // One line per reason; the ids fold away when there are several.
  for (const auto& g : headline.skips) {
    items << "<li><span>skipped</span>: ";
    if (g.ids.size() == 1) {
      items << "<code>" << esc(g.ids.front()) << "</code>: " << esc(g.reason) << "</li>\n";
      continue;
    }
    items << esc(g.reason) << " <details><summary>" << g.ids.size() << " scenarios</summary>";
    for (const auto& id : g.ids) items << "<code>" << esc(id) << "</code> ";
    items << "</details></li>\n";
  }
  for (const auto& note : headline.notes)
    if (note.kind == ScenarioNote::Kind::contended)
      items << "<li><span class=\"warn\">contended</span>: <code>" << esc(note.scenario->id)
            << "</code>: " << esc(note.reason) << "</li>\n";
  if (!items.str().empty()) os << "<ul class=\"warnings\">\n" << items.str() << "</ul>\n";
}

void render_header(std::ostream& os, const RunResult& run) {
  const Headline headline = headline_of(run);
  const bool compared = shows_speedups(run);
  os << "<h1>trainbench report</h1>\n<p class=\"meta\">run <code>" << esc(run.run_id) << "</code> · matrix <code>"
     << esc(run.matrix_name.empty() ? "-" : run.matrix_name) << "</code> · "
     << (compared ? "baseline <code>" + esc(run.baseline_id) + "</code>" : std::string("no baseline")) << " · "
     << run.scenarios.size() << " scenarios</p>\n";
  render_verdict(os, headline);

  // The answers before the evidence: effects, fastest configuration, bottlenecks.
  const auto groups = findings(run);
  if (!groups.empty()) os << "<div id=\"tb-findings\">\n";
  for (const auto& group : groups) {
    os << "<h3>" << esc(group.heading) << "</h3>\n<ul>\n";
    for (std::size_t i = 0; i < group.lines.size(); ++i) {
      const std::string& line = group.lines[i];
      if (line.rfind("  ", 0) == 0) continue;  // details go into the item above
      os << "<li>" << esc(line);
      std::string details;
      for (std::size_t j = i + 1; j < group.lines.size() && group.lines[j].rfind("  ", 0) == 0; ++j)
        details += "<li>" + esc(group.lines[j].substr(2)) + "</li>";
      if (!details.empty()) os << "<ul>" << details << "</ul>";
      os << "</li>\n";
    }
    os << "</ul>\n";
  }
  if (!groups.empty()) os << "</div>\n";

  render_warnings(os, headline);
}

void render_scenarios(std::ostream& os, const RunResult& run, const ReportContext& ctx) {
  const std::size_t loss_step = common_loss_step(run);
  const bool compared = shows_speedups(run);
  // Columns that would be all zeros or dashes stay out: the table must fit a 1400 px page.
  bool tokens = false, skipped = false, traced = false;
  for (const auto& s : run.scenarios) {
    tokens |= s.tokens_per_s > 0;
    skipped |= s.skipped_steps > 0;
    traced |= !traces_of(s).empty();
  }
  const int detail_columns = 8 + (compared ? 2 : 0) + (tokens ? 1 : 0) + (skipped ? 1 : 0) + (traced ? 1 : 0);
  // One scenario's row.
  const auto write_row = [&](const ScenarioResult& s) {
    const auto lp = s.loss_parity;
    const bool drifted = loss_drifted(lp);
    os << "<tr class=\"status-" << to_string(s.status) << (drifted ? " drift" : "") << "\">"
       << "<td><code>" << esc(s.id) << "</code></td>" << td(status_cell(s))
       << num_td(std::to_string(global_batch(s.params)));
    if (!has_timing_columns(s)) {
      os << "<td class=\"wrap\" colspan=\"" << detail_columns << "\">" << esc(reason_of(s)) << "</td></tr>\n";
      return;
    }
    os << num_td(millis(s.step_time_s.median)) << num_td(ci_halfwidth_ms(s)) << num_td(std::to_string(s.measured_steps))
       << num_td(rate(s.samples_per_s));
    if (tokens) os << num_td(rate(s.tokens_per_s));
    auto c = s.comparison;
    if (compared) {
      if (!c) os << num_td("-") << td("-");
      else if (c->verdict == "baseline") os << num_td("1.00x") << td("baseline");
      else
        os << num_td(speedup_interval(*c)) << "<td>" << esc(c->verdict.empty() ? "-" : c->verdict)
           << (drifted ? " <span class=\"warn\">⚠ loss parity</span>" : "") << "</td>";
    }
    const std::string loss = loss_cell(s, loss_step);
    os << td(phase_shares(s)) << td(bottleneck_cell(s)) << "<td>" << esc(loss);
    if (drifted)
      os << " <span class=\"warn\">⚠ drift " << percent(lp->rel_drift, 2) << "% &gt; " << percent(lp->tolerance, 2)
         << "%</span>";
    os << "</td>";
    if (skipped) os << num_td(std::to_string(s.skipped_steps));
    os << num_td(bytes(peak_memory_bytes(s)));
    if (!traced) {
      os << "</tr>\n";
      return;
    }
    os << "<td>";
    bool first = true;
    for (const auto& [kind, path] : traces_of(s)) {
      os << (first ? "" : " · ");
      if (trace_present(ctx, path)) os << "<a href=\"" << esc(trace_link(ctx, path)) << "\">" << esc(kind) << "</a>";
      else os << esc(kind) << " <span class=\"warn\">missing</span>";
      first = false;
    }
    if (first) os << "-";
    os << "</td></tr>\n";
  };
  os << "<h2>Scenarios</h2>\n";
  // With several workloads, a table each (sorting a table never mixes them), under a heading
  // naming what its speed-ups are against.
  const bool grouped = grouped_by_workload(run);
  const auto sections = table_sections(run);
  for (std::size_t k = 0; k < sections.size(); ++k) {
    const WorkloadGroup& group = sections[k];
    if (grouped) {
      os << "<h3 class=\"workload\">" << esc(group.workload) << " <span class=\"meta\">";
      if (group.baseline_id.empty())
        os << (group.annotated ? "no scenario at the baseline's settings, no speed-ups" : "");
      else os << "speed-ups against <code>" << esc(group.baseline_id) << "</code>";
      os << "</span></h3>\n";
    }
    os << "<table id=\"tb-scenarios" << (k == 0 ? std::string() : "-" + std::to_string(k + 1))
       << "\">\n<tr><th>scenario</th><th>status</th>"
          "<th>eff. batch</th><th>step ms</th><th>±CI ms</th><th>steps</th><th>samples/s</th>"
       << (tokens ? "<th>tokens/s</th>" : "") << (compared ? "<th>speed-up [95% CI]</th><th>verdict</th>" : "")
       << "<th>phases % d/h/f/b/o[/c]</th>"
          "<th>bound</th><th>"
       << esc(loss_column_title(loss_step)) << "</th>" << (skipped ? "<th>skipped steps</th>" : "")
       << "<th>peak mem</th>" << (traced ? "<th>traces</th>" : "") << "</tr>\n";
    for (const ScenarioResult* s : group.scenarios) write_row(*s);
    os << "</table>\n";
  }
  if (const auto energy = energy_lines(run); !energy.empty()) {
    os << "<p class=\"meta\" id=\"tb-energy\">Energy over the timed steps: ";
    for (std::size_t k = 0; k < energy.size(); ++k) os << (k ? " · " : "") << esc(energy[k]);
    os << "</p>\n";
  }
}

void render_profiling(std::ostream& os, const RunResult& run, const ReportContext& ctx) {
  std::ostringstream rows;
  for (const auto& s : run.scenarios) {
    if (!s.profile) continue;
    const ProfileSection& p = *s.profile;
    rows << "<tr><td><code>" << esc(s.id) << "</code></td>"
         << num_td(p.window_steps ? std::to_string(*p.window_steps) : "-") << "<td>";
    bool first = true;
    for (const auto& [kind, path] : p.traces) {
      rows << (first ? "" : "<br>") << esc(kind) << ": ";
      if (trace_present(ctx, path)) rows << "<a href=\"" << esc(trace_link(ctx, path)) << "\">" << esc(path) << "</a>";
      else rows << "<code>" << esc(path) << "</code> <span class=\"warn\">missing</span>";
      first = false;
    }
    rows << "</td><td>";
    if (p.cupti.is_object() && !p.cupti.empty()) {
      first = true;
      for (const auto& [k, v] : p.cupti.items()) {
        if (v.is_structured()) continue;
        rows << (first ? "" : "<br>") << esc(k) << " = " << esc(scalar(v));
        first = false;
      }
    } else {
      rows << "-";
    }
    rows << "</td></tr>\n";
  }
  if (rows.str().empty()) return;
  os << "<h2>Profiling</h2>\n<p class=\"meta\">Traces open in chrome://tracing or "
        "https://ui.perfetto.dev (offline: Perfetto UI's \"Open trace file\").</p>\n"
        "<table id=\"tb-profiling\">\n<tr><th>scenario</th><th>window steps</th><th>traces</th>"
        "<th>CUPTI summary</th></tr>\n"
     << rows.str() << "</table>\n";
}

void render_capacity(std::ostream& os, const RunResult& run) {
  // The same table as the console and Markdown reports (capacity_tables.hpp): the same units
  // (GFLOP/s on a CPU, TFLOP/s once a figure reaches a TFLOP/s), cells and rows.
  const TextTable table = report::scenario_capacity_table(run);
  const auto errors = report::mfu_errors(run);
  if (table.empty() && !run.capacity) return;
  os << "<h2>Capacity</h2>\n";
  if (!table.empty()) {
    os << "<table id=\"tb-capacity\">\n<tr>";
    for (const auto& title : table.titles) os << "<th>" << esc(title) << "</th>";
    os << "</tr>\n";
    for (const auto& row : table.rows) {
      os << "<tr><td><code>" << esc(row.at(0)) << "</code></td>";
      const auto error = std::find_if(errors.begin(), errors.end(), [&](const auto& e) { return e.first == row[0]; });
      for (std::size_t c = 1; c < row.size(); ++c) {
        if (row[c] == capacity::kMfuErrorCell && error != errors.end())
          os << "<td class=\"num bad\" title=\"" << esc(error->second) << "\">" << esc(row[c]) << "</td>";
        else os << (table.right.at(c) ? num_td(row[c]) : td(row[c]));
      }
      os << "</tr>\n";
    }
    os << "</table>\n";
  }
  if (!errors.empty()) {
    os << "<ul class=\"warnings\" id=\"tb-mfu-errors\">\n";
    for (const auto& [id, error] : errors)
      os << "<li><span class=\"bad\">⚠ MFU error</span>: <code>" << esc(id) << "</code>: " << esc(error) << "</li>\n";
    os << "</ul>\n";
  }
  const RunCapacitySection& run_cap = run_capacity_of(run);
  if (!run_cap.batch_search.empty()) {
    os << "<h3>Batch-size search</h3>\n<table id=\"tb-batch-search\">\n<tr><th>model</th>"
          "<th>precision</th><th>max batch</th><th>best batch</th><th>best samples/s</th>"
          "<th>probes (batch: samples/s, peak)</th></tr>\n";
    for (const auto& b : run_cap.batch_search) {
      std::string probes;
      for (const auto& p : b.probes) {
        if (!probes.empty()) probes += " · ";
        probes += std::to_string(p.batch) + ": ";
        probes += p.fits ? rate(p.samples_per_s) + ", " + bytes(p.peak_bytes) : std::string("does not fit");
      }
      os << "<tr>" << td(b.model.empty() ? "-" : b.model) << td(b.precision.empty() ? "-" : b.precision)
         << num_td(max_batch_cell(b)) << num_td(std::to_string(b.best_batch)) << num_td(rate(b.best_samples_per_s))
         << "<td class=\"wrap\">" << esc(probes) << "</td></tr>\n";
    }
    os << "</table>\n";
  }
  if (!run_cap.memory_fit.empty()) {
    os << "<h3>Memory model (peak = fixed + per-sample × batch)</h3>\n<table id=\"tb-memory-fit\">\n"
          "<tr><th>model</th><th>precision</th><th>fixed</th><th>per sample</th><th>R²</th>"
          "<th>predicted max batch</th></tr>\n";
    for (const auto& m : run_cap.memory_fit)
      os << "<tr>" << td(m.model.empty() ? "-" : m.model) << td(m.precision.empty() ? "-" : m.precision)
         << num_td(bytes(whole_bytes(m.fixed_bytes))) << num_td(bytes(whole_bytes(m.per_sample_bytes)))
         << num_td(fixed(m.r2.value_or(0.0), 4)) << num_td(std::to_string(m.predicted_max_batch)) << "</tr>\n";
    os << "</table>\n";
  }
}

// A TextTable as an HTML table; the first `code_columns` columns hold identifiers.
void write_table(std::ostream& os, const std::string& id, const TextTable& table, std::size_t code_columns = 0) {
  os << "<table id=\"" << esc(id) << "\">\n<tr>";
  for (const auto& title : table.titles) os << "<th>" << esc(title) << "</th>";
  os << "</tr>\n";
  for (const auto& row : table.rows) {
    os << "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c < code_columns && row[c] != "-") os << "<td><code>" << esc(row[c]) << "</code></td>";
      else os << (c < table.right.size() && table.right[c] ? num_td(row[c]) : td(row[c]));
    }
    os << "</tr>\n";
  }
  os << "</table>\n";
}

void render_scaling(std::ostream& os, const RunResult& run) {
  const TextTable scenarios = report::data_parallel_table(run);
  if (scenarios.empty() && !run.scaling) return;
  os << "<h2>Data parallel</h2>\n";
  if (!scenarios.empty()) write_table(os, "tb-data-parallel", scenarios, 1);
  if (const TextTable ranks = report::rank_table(run); !ranks.empty()) {
    os << "<h3>Per rank (straggler view: every rank waits for the slowest compute)</h3>\n";
    write_table(os, "tb-ranks", ranks, 1);
  }
  if (!run.scaling) return;
  int index = 0;
  for (const auto& series : run.scaling->series) {
    const std::string n = std::to_string(index++);
    os << "<h3>Scaling <code>" << esc(series.label) << "</code> ("
       << esc(series.scaling.empty() ? "weak" : series.scaling)
       << " scaling)</h3>\n<ul class=\"notes\" id=\"tb-scaling-notes-" << n << "\">\n";
    for (const auto& line : report::series_notes(series)) os << "<li>" << esc(line) << "</li>\n";
    os << "</ul>\n";
    if (!series.model) continue;
    os << "<h4>" << esc(series.model->label) << "</h4>\n";
    write_table(os, "tb-projection-" + n, report::projection_table(*series.model));
    if (!series.model->checks.empty()) {
      os << "<h4>Projection vs measured</h4>\n";
      write_table(os, "tb-projection-check-" + n, report::projection_check_table(*series.model), 0);
    }
  }
}

void flatten(const nlohmann::json& j, const std::string& prefix, std::ostream& os) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, os);
    return;
  }
  os << "<tr>" << td(prefix) << td(scalar(j)) << "</tr>\n";
}

}  // namespace

HtmlReporter::HtmlReporter(std::string chartjs_path) : chartjs_path_(std::move(chartjs_path)) {
  if (chartjs_path_.empty()) {
    const char* env = std::getenv("TRAINBENCH_CHARTJS");
    chartjs_path_ = (env != nullptr && *env != '\0') ? env : TRAINBENCH_CHARTJS_PATH;
  }
}

std::string HtmlReporter::data_block(const RunResult& run) { return script_safe(html_chart_data(run).dump(1)); }

void HtmlReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  std::ostream& os = *ctx.out;
  const std::string chartjs = html_page::read_chartjs(chartjs_path_);

  html_page::open(os, "trainbench " + run.run_id);
  render_header(os, run);
  html_page::chart_slots(os, chartjs, chartjs_path_, "trainbench report");

  render_scenarios(os, run, ctx);
  render_profiling(os, run, ctx);
  render_capacity(os, run);
  render_scaling(os, run);
  if (run.environment.is_object() && !run.environment.empty()) {
    os << "<h2>Environment</h2>\n<table id=\"tb-environment\">\n<tr><th>key</th><th>value</th></tr>\n";
    flatten(run.environment, "", os);
    os << "</table>\n";
  }
  os << "<p class=\"meta\">Generated by trainbench " << TRAINBENCH_VERSION << ".</p>\n";

  html_page::close(os, data_block(run), chartjs);
}

}  // namespace tb
