#include <trainbench/reporters/console_reporter.hpp>

#include <trainbench/reporters/capacity_tables.hpp>
#include <trainbench/reporters/energy_view.hpp>
#include <trainbench/reporters/findings.hpp>
#include <trainbench/reporters/headline.hpp>
#include <trainbench/reporters/loss_at_step.hpp>
#include <trainbench/reporters/memory_timeline_view.hpp>
#include <trainbench/reporters/report_format.hpp>
#include <trainbench/reporters/report_views.hpp>
#include <trainbench/reporters/scaling_tables.hpp>
#include <trainbench/support/join.hpp>
#include <trainbench/support/text_table.hpp>

namespace tb {

namespace {

// The console's tables: titles left-aligned over a rule of dashes.
void print_table(std::ostream& os, const TextTable& t) { write_text_table(os, t, {.rule = true}); }

void print_capacity(std::ostream& os, const RunResult& run) {
  using namespace report;
  const TextTable scenarios = scenario_capacity_table(run);
  const RunCapacitySection capacity = run_capacity_of(run);
  if (scenarios.empty() && !has_capacity_findings(capacity)) return;
  os << "\nCapacity\n";
  if (!scenarios.empty()) print_table(os, scenarios);
  for (const auto& [id, error] : mfu_errors(run)) os << "ERROR MFU " << id << ": " << error << '\n';
  const std::string limit = memory_limit_note(capacity);
  if (!capacity.batch_search.empty()) {
    os << "\nbatch-size search" << (limit.empty() ? "" : ", " + limit) << '\n';
    print_table(os, batch_search_table(capacity));
  }
  if (!capacity.memory_fit.empty()) {
    os << "\nmemory model, peak = fixed + per sample × batch\n";
    print_table(os, memory_fit_table(capacity));
  }
}

void print_scaling(std::ostream& os, const RunResult& run) {
  using namespace report;
  const TextTable scenarios = data_parallel_table(run);
  if (scenarios.empty() && !run.scaling) return;
  os << "\nData parallel\n";
  if (!scenarios.empty()) print_table(os, scenarios);
  if (const TextTable ranks = rank_table(run); !ranks.empty()) {
    os << "\nper rank (straggler view: every rank waits for the slowest compute)\n";
    print_table(os, ranks);
  }
  if (!run.scaling) return;
  for (const auto& series : run.scaling->series) {
    os << "\nscaling " << series_heading(series) << '\n';
    for (const auto& line : series_notes(series)) os << "  " << line << '\n';
    if (!series.model) continue;
    os << "\n" << series.model->label << '\n';
    print_table(os, projection_table(*series.model));
    if (!series.model->checks.empty()) {
      os << "\nprojection vs measured\n";
      print_table(os, projection_check_table(*series.model));
    }
  }
}

// Why each scenario that did not finish ok stopped, contention, then loss drift.
void print_notes(std::ostream& os, const report::Headline& headline) {
  using namespace report;
  bool notes = false;
  for (const auto& note : headline.notes) {
    if (note.kind != ScenarioNote::Kind::status) continue;
    if (!notes) os << '\n';
    notes = true;
    os << pad(std::string(to_string(note.scenario->status)) + ' ', 8) << note.scenario->id
       << ": "  // a space after any length
       << note.reason << '\n';
  }
  for (const auto& note : headline.notes)
    if (note.kind == ScenarioNote::Kind::contended)
      os << "contended " << note.scenario->id << ": " << note.reason << '\n';
  if (!headline.drifted.empty()) os << '\n';
  for (const ScenarioResult* s : headline.drifted) {
    const auto& lp = *s->loss_parity;
    os << "WARNING loss parity: " << s->id << " drifted " << percent(lp.rel_drift, 2) << "% from " << lp.reference_id
       << " (tolerance " << percent(lp.tolerance, 2) << "%)\n";
  }
}

// The geomean line and the status counts, last: what a terminal shows after the run scrolls by.
void print_headline(std::ostream& os, const report::Headline& headline) {
  os << '\n';
  const auto& geomean = headline.geomean;
  if (geomean.per_workload()) {
    // A geomean per workload, each against its own baseline: never one over different models.
    os << "geomean speedup by workload\n";
    for (const auto& w : geomean.workloads) os << "  " << w.workload << ": " << w.detail << '\n';
  } else if (geomean.shown) {
    os << "geomean speedup " << geomean.value.value_or("-") << "; ";
  }
  std::vector<std::string> counts;
  for (const auto& part : headline.count_parts) counts.push_back(part.label + ' ' + std::to_string(part.count));
  os << join(counts, ", ") << '\n';
}

}  // namespace

void ConsoleReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  using namespace report;
  std::ostream& os = *ctx.out;
  os << "trainbench run " << run.run_id;
  if (!run.matrix_name.empty()) os << " (matrix " << run.matrix_name << ")";
  os << ": " << run.scenarios.size() << " scenarios";
  if (!run.baseline_id.empty()) os << ", baseline " << run.baseline_id;
  os << "\n\n";
  // The answers first; the tables below are the evidence.
  for (const auto& group : findings(run)) {
    os << group.heading << '\n';
    for (const auto& line : group.lines) os << "  " << line << '\n';
    os << '\n';
  }

  const std::size_t loss_step = common_loss_step(run);
  TextTable table;
  table.titles = {"scenario",
                  "status",
                  "eff. batch",
                  "step ms",
                  "±CI ms",
                  "samples/s",
                  "speedup [95% CI] verdict",
                  "phases % d/h/f/b/o[/c]",
                  "bound",
                  loss_column_title(loss_step),
                  "skipped",
                  "peak mem"};
  table.right = {false, false, true, true, true, true, false, false, false, false, true, true};
  auto& rows = table.rows;
  const bool compared = shows_speedups(run);
  const auto add_row = [&](const ScenarioResult& s) {
    if (!has_timing_columns(s)) {
      rows.push_back({s.id, status_cell(s), "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"});
      return;
    }
    std::string speed = speedup_cell(s);
    if (loss_drifted(s.loss_parity)) speed += " (loss drift!)";
    rows.push_back({s.id, status_cell(s), std::to_string(global_batch(s.params)), millis(s.step_time_s.median),
                    ci_halfwidth_ms(s), rate(s.samples_per_s), speed, phase_shares(s), bottleneck_cell(s),
                    loss_cell(s, loss_step), std::to_string(s.skipped_steps), bytes(peak_memory_bytes(s))});
  };
  // With several workloads, each one's rows under a line naming what its speed-ups are against
  // (a row of one cell runs on over the columns).
  const bool grouped = grouped_by_workload(run);
  for (const auto& group : table_sections(run)) {
    if (grouped) rows.push_back({workload_heading(group)});
    for (const ScenarioResult* s : group.scenarios) add_row(*s);
  }
  if (!compared) {
    constexpr std::size_t kSpeedColumn = 6;
    table.titles.erase(table.titles.begin() + kSpeedColumn);
    table.right.erase(table.right.begin() + kSpeedColumn);
    for (auto& row : rows)
      if (row.size() > kSpeedColumn) row.erase(row.begin() + kSpeedColumn);
  }
  print_table(os, table);

  const Headline headline = headline_of(run);
  print_notes(os, headline);

  bool memory_heading = false;
  for (const auto& s : run.scenarios) {
    const std::string memory = memory_timeline_summary(s);
    if (memory.empty()) continue;
    if (!memory_heading) os << "\nmemory over the profiling window\n";
    memory_heading = true;
    os << "  " << s.id << ": " << memory << '\n';
  }
  if (const auto energy = energy_lines(run); !energy.empty()) {
    os << "\nenergy over the timed steps\n";
    for (const auto& line : energy) os << "  " << line << '\n';
  }

  print_capacity(os, run);
  print_scaling(os, run);

  print_headline(os, headline);
}

}  // namespace tb
