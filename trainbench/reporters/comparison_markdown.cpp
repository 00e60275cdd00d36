#include <trainbench/reporters/comparison_markdown.hpp>

#include <algorithm>
#include <sstream>

#include <trainbench/reporters/comparison_outcome.hpp>
#include <trainbench/reporters/report_format.hpp>

namespace tb {

namespace {

// A table cell: pipes would end the cell, newlines the row.
std::string md_cell(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return out;
}

std::string interval_text(const stats::RatioInterval& r) {
  return report::fixed(r.ratio, 3) + "x" +
         (r.valid ? " [" + report::fixed(r.low, 3) + ", " + report::fixed(r.high, 3) + "]" : " [no interval]");
}

struct Row {
  const ScenarioOutcome* outcome;
  const ScenarioComparison* scenario;  // nullptr: missing in NEW
};

int severity(ScenarioOutcome::Kind k) {
  return k == ScenarioOutcome::Kind::failed ? 0 : k == ScenarioOutcome::Kind::skipped ? 1 : 2;
}

void write_row(const Row& r, std::ostream& out) {
  const char* mark = r.outcome->kind == ScenarioOutcome::Kind::failed    ? "**failed**"
                     : r.outcome->kind == ScenarioOutcome::Kind::skipped ? "not judged"
                                                                         : "passed";
  out << "| " << mark << " | `" << md_cell(r.outcome->id) << "` | ";
  const ScenarioComparison* s = r.scenario;
  if (s && s->compared) {
    out << report::fixed(s->old_median_s * 1e3, 3) << " | " << report::fixed(s->new_median_s * 1e3, 3) << " | "
        << report::signed_percent(0.01 * s->change_pct) << " | " << interval_text(s->speedup) << " | "
        << (s->sequential ? sequential_rounds_text(*s->sequential) : std::string(stats::to_string(s->verdict)));
  } else {
    out << "- | - | - | - | -";
  }
  out << " | " << md_cell(r.outcome->reason) << " |\n";
}

void write_table(const std::vector<Row>& rows, bool sequential, std::ostream& out) {
  out << "| outcome | scenario | old ms | new ms | change | speedup OLD/NEW " << (sequential ? "[gate's CI]" : "[95%]")
      << " | verdict | why |\n"
      << "|---|---|---:|---:|---:|---|---|---|\n";
  for (const auto& r : rows) write_row(r, out);
}

}  // namespace

std::string markdown_from_comparison(const RunComparison& c, const std::string& title, std::optional<double> gate_pct,
                                     std::size_t max_rows) {
  const std::vector<ScenarioOutcome> outcomes = scenario_outcomes(c);
  std::vector<Row> rows;
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    rows.push_back({&outcomes[i], i < c.scenarios.size() ? &c.scenarios[i] : nullptr});
  // Failed, then not judged, then the rest; within each, the largest slowdown first.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    const int sa = severity(a.outcome->kind), sb = severity(b.outcome->kind);
    if (sa != sb) return sa < sb;
    const double ca = a.scenario && a.scenario->compared ? a.scenario->change_pct : 0;
    const double cb = b.scenario && b.scenario->compared ? b.scenario->change_pct : 0;
    return ca > cb;
  });
  const auto count = [&](ScenarioOutcome::Kind k) {
    return std::count_if(outcomes.begin(), outcomes.end(), [k](const ScenarioOutcome& o) { return o.kind == k; });
  };
  const auto failed = count(ScenarioOutcome::Kind::failed), skipped = count(ScenarioOutcome::Kind::skipped);

  std::ostringstream out;
  const auto verdicts = [&](stats::Verdict v) {
    return std::count_if(c.scenarios.begin(), c.scenarios.end(),
                         [v](const ScenarioComparison& s) { return s.compared && s.verdict == v; });
  };
  const std::string of_all = " of " + std::to_string(outcomes.size()) + " scenarios";
  out << "### " << title << ": ";
  if (!gate_pct)
    out << c.compared << " scenarios compared, " << verdicts(stats::Verdict::slower) << " slower and "
        << verdicts(stats::Verdict::faster) << " faster at 95% (no gate)";
  else if (failed > 0) out << failed << of_all << " failed the " << report::significant(*gate_pct) << "% gate";
  else if (skipped > 0) out << "the gate did not judge " << skipped << of_all;
  else
    out << (outcomes.size() == 1 ? std::string("the scenario")
                                 : "all " + std::to_string(outcomes.size()) + " scenarios")
        << " passed the " << report::significant(*gate_pct) << "% gate";
  out << "\n\n";
  out << "OLD `" << md_cell(c.old_run_id) << "` vs NEW `" << md_cell(c.new_run_id) << "`: "
      << (c.paired ? "paired, measured side by side round by round (one `trainbench ab` session), so the machine's "
                     "drift cancels"
                   : "two separate runs, so the machine's drift between them is in every change (prefer "
                     "`trainbench ab`)")
      << ".";
  if (c.geomean_speedup) out << " Geomean speedup OLD/NEW " << interval_text(*c.geomean_speedup) << ".";
  if (c.sequential)
    out << " Measured until each verdict was settled: the intervals are the gate's repeated intervals, "
           "family-wise 95% over every scenario and look (docs/how-it-measures.md#sequential-verdicts).";
  out << "\n";
  for (const auto& w : c.workloads)
    out << "- geomean speedup `" << md_cell(w.workload) << "`: " << interval_text(w.geomean_speedup) << " ("
        << w.compared << (w.compared == 1 ? " scenario)\n" : " scenarios)\n");
  out << "\n";

  const std::size_t shown = std::min(rows.size(), max_rows);
  write_table({rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown)}, c.sequential, out);
  if (shown < rows.size()) {
    out << "\n<details><summary>" << rows.size() - shown << " more scenarios</summary>\n\n";
    write_table({rows.begin() + static_cast<std::ptrdiff_t>(shown), rows.end()}, c.sequential, out);
    out << "\n</details>\n";
  }
  if (!c.only_in_new.empty()) out << "\n" << c.only_in_new.size() << " scenario(s) only in NEW, not compared.\n";
  return out.str();
}

}  // namespace tb
