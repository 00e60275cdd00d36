#include <trainbench/reporters/markdown_reporter.hpp>

#include <trainbench/reporters/findings.hpp>
#include <trainbench/reporters/headline.hpp>

#include <trainbench/reporters/capacity_tables.hpp>
#include <trainbench/reporters/energy_view.hpp>
#include <trainbench/reporters/loss_at_step.hpp>
#include <trainbench/reporters/memory_timeline_view.hpp>
#include <trainbench/reporters/report_format.hpp>
#include <trainbench/reporters/report_views.hpp>
#include <trainbench/reporters/scaling_tables.hpp>
#include <trainbench/support/join.hpp>

namespace tb {

namespace {

// Table cells must not contain pipes or line breaks.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string code(const std::string& s) { return "`" + s + "`"; }

// Flattens the environment manifest into "git.commit" style keys (sorted, deterministic).
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
  } else if (j.is_string()) {
    out.emplace_back(prefix, j.get<std::string>());
  } else {
    out.emplace_back(prefix, j.dump());
  }
}

// Link targets must not contain spaces or parentheses.
std::string link_target(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ') out += "%20";
    else if (c == '(') out += "%28";
    else if (c == ')') out += "%29";
    else out += c;
  }
  return out;
}

// A table whose first `code_columns` columns hold identifiers shown as code.
void write_table(std::ostream& os, const TextTable& t, std::size_t code_columns = 0) {
  os << '|';
  for (const auto& title : t.titles) os << ' ' << cell(title) << " |";
  os << "\n|";
  for (bool right : t.right) os << (right ? "--:|" : "---|");
  os << '\n';
  for (const auto& row : t.rows) {
    os << '|';
    for (std::size_t c = 0; c < row.size(); ++c)
      os << ' ' << (c < code_columns && row[c] != "-" ? code(row[c]) : cell(row[c])) << " |";
    os << '\n';
  }
}

void capacity_section(std::ostream& os, const RunResult& run) {
  using namespace report;
  const TextTable scenarios = scenario_capacity_table(run);
  const RunCapacitySection capacity = run_capacity_of(run);
  if (scenarios.empty() && !has_capacity_findings(capacity)) return;
  os << "\n#### Capacity\n";
  if (!scenarios.empty()) {
    os << '\n';
    write_table(os, scenarios, 1);
    const auto errors = mfu_errors(run);
    if (!errors.empty()) os << '\n';
    for (const auto& [id, error] : errors) os << "- ❌ **MFU error** " << code(id) << ": " << cell(error) << '\n';
  }
  const std::string limit = memory_limit_note(capacity);
  if (!capacity.batch_search.empty()) {
    os << "\nBatch-size search" << (limit.empty() ? "" : ", " + limit) << ":\n\n";
    write_table(os, batch_search_table(capacity));
  }
  if (!capacity.memory_fit.empty()) {
    os << "\nMemory model, peak = fixed + per sample × batch:\n\n";
    write_table(os, memory_fit_table(capacity));
  }
}

void scaling_section(std::ostream& os, const RunResult& run) {
  using namespace report;
  const TextTable scenarios = data_parallel_table(run);
  if (scenarios.empty() && !run.scaling) return;
  os << "\n#### Data parallel\n";
  if (!scenarios.empty()) {
    os << '\n';
    write_table(os, scenarios, 1);
  }
  if (const TextTable ranks = rank_table(run); !ranks.empty()) {
    os << "\nPer rank (straggler view: every rank waits for the slowest compute):\n\n";
    write_table(os, ranks, 1);
  }
  if (!run.scaling) return;
  for (const auto& series : run.scaling->series) {
    os << "\n##### Scaling " << code(series.label) << " (" << (series.scaling.empty() ? "weak" : series.scaling)
       << " scaling)\n\n";
    for (const auto& line : series_notes(series)) os << "- " << cell(line) << '\n';
    if (!series.model) continue;
    os << "\n**" << cell(series.model->label) << "**:\n\n";
    write_table(os, projection_table(*series.model));
    if (!series.model->checks.empty()) {
      os << "\nProjection vs measured:\n\n";
      write_table(os, projection_check_table(*series.model));
    }
  }
}

void profiling_section(std::ostream& os, const RunResult& run, const ReportContext& ctx) {
  using namespace report;
  TextTable t;
  t.titles = {"scenario", "window steps", "overhead vs timed", "traces"};
  t.right = {false, true, true, false};
  for (const auto& s : run.scenarios) {
    const auto p = s.profile;
    if (!p) continue;
    std::string traces;
    for (const auto& [kind, path] : p->traces)
      traces += (traces.empty() ? "" : " · ") + (trace_present(ctx, path)
                                                     ? "[" + kind + "](" + link_target(trace_link(ctx, path)) + ")"
                                                     : kind + " (missing: " + code(path) + ")");
    t.rows.push_back({s.id, p->window_steps ? std::to_string(*p->window_steps) : "-",
                      p->overhead_vs_timed ? signed_percent(*p->overhead_vs_timed) : "-",
                      traces.empty() ? "-" : traces});
  }
  if (t.empty()) return;
  os << "\n#### Profiling\n\nTraces open in https://ui.perfetto.dev or chrome://tracing.\n\n";
  write_table(os, t, 1);
  bool memory_heading = false;
  for (const auto& s : run.scenarios) {
    const std::string memory = memory_timeline_summary(s);
    if (memory.empty()) continue;
    if (!memory_heading) os << "\nMemory over the profiling window:\n\n";
    memory_heading = true;
    os << "- " << code(s.id) << ": " << cell(memory) << '\n';
  }
}

// The scenario table over `scenarios`: speed-up and verdict columns when `compared`.
void scenario_table(std::ostream& os, const std::vector<const ScenarioResult*>& scenarios, bool compared,
                    std::size_t loss_step) {
  using namespace report;
  os << "| scenario | status | eff. batch | step ms (±CI) | samples/s | "
     << (compared ? "speedup [95% CI] | verdict | " : "") << "phases % d/h/f/b/o[/c] | bound | "
     << loss_column_title(loss_step) << " | peak mem |\n";
  os << "|---|---|--:|--:|--:|" << (compared ? "--:|---|" : "") << "---|---|---|--:|\n";
  for (const ScenarioResult* scenario : scenarios) {
    const ScenarioResult& s = *scenario;
    os << "| " << code(s.id) << " | " << status_cell(s) << " | ";
    if (!has_timing_columns(s)) {
      os << (compared ? "- | - | " : "") << "- | - | - | - | - | - | - |\n";
      continue;
    }
    os << global_batch(s.params) << " | " << millis(s.step_time_s.median) << " " << ci_halfwidth_ms(s) << " | "
       << rate(s.samples_per_s) << " | ";
    // A speed-up that changes the training result is not a win: the verdict and loss cells
    // carry a warning marker instead.
    const auto lp = s.loss_parity;
    const bool drifted = loss_drifted(lp);
    auto c = s.comparison;
    if (compared) {
      if (!c) os << "- | " << (drifted ? "⚠️ loss parity" : "-") << " | ";
      else if (c->verdict == "baseline") os << "1.00x | baseline | ";
      else
        os << speedup_interval(*c) << " | " << (c->verdict.empty() ? "-" : c->verdict)
           << (drifted ? " ⚠️ loss parity" : "") << " | ";
    }
    std::string loss = loss_cell(s, loss_step);
    if (drifted) loss += " ⚠️ drift " + percent(lp->rel_drift, 2) + "%";
    os << phase_shares(s) << " | " << bottleneck_cell(s) << " | " << loss << " | " << bytes(peak_memory_bytes(s))
       << " |\n";
  }
}

// The headline after its marker: geomean speed-up (per workload when there are several), then
// the status counts.
void verdict_line(std::ostream& os, const report::Headline& headline) {
  const auto& geomean = headline.geomean;
  if (geomean.per_workload()) {
    // A geomean per workload, each against its own baseline.
    os << "geomean speedup";
    for (const auto& w : geomean.workloads) os << " **" << cell(w.workload) << "** " << w.value << " ·";
    os << " ";
  } else if (geomean.shown) {
    os << "geomean speedup " << (geomean.value ? "**" + *geomean.value + "**" : std::string("-")) << " · ";
  }
  std::vector<std::string> counts;
  for (const auto& part : headline.count_parts) counts.push_back(std::to_string(part.count) + ' ' + part.label);
  os << join(counts, " · ");
}

// The bullet list under the verdict: loss drift, then each scenario that did not finish ok or was
// contended, then the skipped ones, one line per reason.
std::vector<std::string> warning_lines(const report::Headline& headline) {
  using namespace report;
  std::vector<std::string> warnings;
  for (const ScenarioResult* s : headline.drifted) {
    const auto& lp = *s->loss_parity;
    warnings.push_back("⚠️ **loss parity**: " + code(s->id) + " drifted " + percent(lp.rel_drift, 2) + "% from " +
                       code(lp.reference_id) + " (tolerance " + percent(lp.tolerance, 2) + "%)");
  }
  for (const auto& note : headline.notes) {
    const std::string id = code(note.scenario->id);
    const std::string reason = cell(note.reason);
    if (note.kind == ScenarioNote::Kind::contended) {
      warnings.push_back("🐢 **contended** " + id + ": " + reason);
      continue;
    }
    switch (note.scenario->status) {
      case ScenarioStatus::failed: warnings.push_back("❌ **failed** " + id + ": " + reason); break;
      case ScenarioStatus::oom: warnings.push_back("💥 **out of memory** " + id + ": " + reason); break;
      case ScenarioStatus::diverged:
        warnings.push_back("📈 **diverged** " + id + ": " + reason +
                           " (speed figures kept, not counted in any speedup)");
        break;
      case ScenarioStatus::interrupted: warnings.push_back("⏸️ **interrupted** " + id + ": " + reason); break;
      case ScenarioStatus::crashed: warnings.push_back("🛑 **crashed** " + id + ": " + reason); break;
      case ScenarioStatus::ok:
      case ScenarioStatus::skipped: break;  // skips: one line per reason, below
    }
  }
  for (const auto& g : headline.skips) {
    if (g.ids.size() == 1) {
      warnings.push_back("⏭️ **skipped** " + code(g.ids.front()) + ": " + cell(g.reason));
      continue;
    }
    std::string ids;
    for (const auto& id : g.ids) ids += (ids.empty() ? "" : ", ") + code(id);
    warnings.push_back("⏭️ **skipped** " + std::to_string(g.ids.size()) + " scenarios: " + cell(g.reason) + " (" +
                       ids + ")");
  }
  return warnings;
}

}  // namespace

void MarkdownReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  using namespace report;
  std::ostream& os = *ctx.out;
  const Headline headline = headline_of(run);
  const bool compared = shows_speedups(run);
  const bool grouped = grouped_by_workload(run);
  // Verdict line first: a reader of a PR comment sees the outcome without scrolling.
  os << "### " << (headline.trouble ? "⚠️" : "✅") << " trainbench " << code(run.run_id) << ": ";
  verdict_line(os, headline);
  os << "\n\n";
  if (grouped)
    os << "Matrix " << code(run.matrix_name.empty() ? "-" : run.matrix_name) << ", baseline " << code(run.baseline_id)
       << ": each workload is measured against its own scenario at the baseline's settings.\n\n";
  else if (compared)
    os << "Matrix " << code(run.matrix_name.empty() ? "-" : run.matrix_name) << ", baseline " << code(run.baseline_id)
       << ".\n\n";
  else if (!run.matrix_name.empty())
    os << "Matrix " << code(run.matrix_name) << ", no baseline: each scenario stands alone (no speed-ups).\n\n";
  // The answers before the evidence: effects, fastest configuration, bottlenecks.
  for (const auto& group : findings(run)) {
    os << "**" << group.heading << "**\n\n";
    for (const auto& line : group.lines) {
      const bool sub = line.rfind("  ", 0) == 0;  // a detail of the line above
      os << (sub ? "  - " : "- ") << cell(sub ? line.substr(2) : line) << '\n';
    }
    os << '\n';
  }
  const std::vector<std::string> warnings = warning_lines(headline);
  for (const auto& w : warnings) os << "- " << w << '\n';
  if (!warnings.empty()) os << '\n';

  const std::size_t loss_step = common_loss_step(run);
  const auto sections = table_sections(run);
  for (const auto& group : sections) {
    if (grouped) {
      os << "**" << cell(group.workload) << "**";
      if (!group.baseline_id.empty()) os << ", speed-ups against " << code(group.baseline_id) << ":\n\n";
      else os << (group.annotated ? ": no scenario at the baseline's settings, no speed-ups.\n\n" : ":\n\n");
    }
    scenario_table(os, group.scenarios, compared, loss_step);
    if (&group != &sections.back()) os << '\n';
  }

  if (const auto energy = energy_lines(run); !energy.empty()) {
    os << "\nEnergy over the timed steps:\n\n";
    for (const auto& line : energy) os << "- " << cell(line) << '\n';
  }

  capacity_section(os, run);
  scaling_section(os, run);
  profiling_section(os, run, ctx);

  if (run.environment.is_object() && !run.environment.empty()) {
    std::vector<std::pair<std::string, std::string>> env;
    flatten(run.environment, "", env);
    os << "\n<details><summary>Environment</summary>\n\n| key | value |\n|---|---|\n";
    for (const auto& [k, v] : env) os << "| " << cell(k) << " | " << cell(v) << " |\n";
    os << "\n</details>\n";
  }
}

}  // namespace tb
