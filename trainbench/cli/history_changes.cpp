#include <trainbench/cli/history_changes.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <trainbench/cli/exit_code.hpp>
#include <trainbench/reporters/junit_report.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/text_table.hpp>

namespace tb::cli {

namespace {

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1) * 100);
  return buf;
}

// The code under test's commit when the run recorded one, else trainbench's own revision.
std::string commit_of(const TrendPoint& p) {
  const std::string& c = p.commit.empty() ? p.git_revision : p.commit;
  return c.empty() ? "?" : c.substr(0, std::min<std::size_t>(10, c.size()));
}

// The threshold of the gate for this change: the matrix's for the scenario in the newest run of
// its new level (params.gates: step time for the time metrics, peak memory for memory), else
// --fail-on-change's.
double gate_pct(const TrendChange& c, double fallback) {
  const bool memory = c.metric == TrendMetric::peak_memory;
  const double own = memory ? c.newest.gate_peak_memory_pct : c.newest.gate_step_time_pct;
  return own > 0 ? own : fallback;
}

bool gated(const TrendChange& c, const ChangesRequest& r) {
  return r.fail_pct && c.regression && std::abs(c.percent()) >= gate_pct(c, *r.fail_pct) &&
         c.runs_since <= static_cast<std::size_t>(r.window);
}

// Several scenarios that changed between the same two commits: a change in shared code, or the
// machine changing speed for good. The numbers alone cannot tell which; `ab` on the two commits can.
void print_shared_moves(const std::vector<TrendChange>& changes, std::size_t series, TrendMetric metric,
                        std::ostream& out) {
  std::map<std::string, std::vector<double>> by_range;  // "c1..c2" -> percent changes
  for (const auto& c : changes) by_range[commit_of(c.before) + ".." + commit_of(c.after)].push_back(c.percent());
  for (const auto& [range, moves] : by_range) {
    if (moves.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(moves.begin(), moves.end());
    char line[256];
    std::snprintf(line, sizeof line, "moved together: %zu of %zu scenarios between %s (%+.1f%% to %+.1f%%)",
                  moves.size(), series, range.c_str(), *lo, *hi);
    // Paired ratios cancel the machine's drift round by round: only the code is left.
    out << line
        << (metric == TrendMetric::paired_ratio
                ? ": a change in code they share (the ratios are paired: not the machine's drift)\n"
                : ": shared code, or the machine changing speed; trainbench ab on the two commits tells them apart\n");
  }
}

}  // namespace

int print_changes(const History& history, const ChangesRequest& request, std::ostream& out) {
  const auto ids =
      request.scenario.empty() ? history.scenario_ids(request.matrix) : std::vector<std::string>{request.scenario};
  TB_CHECK_INPUT(!ids.empty(), history.path(), "--matrix", "no recorded scenarios of matrix '", request.matrix, "'");
  const ChangePointOptions options;
  std::vector<TrendChange> changes;
  std::vector<ScenarioChanges> per_scenario;  // for JUnit
  std::size_t series = 0, split = 0;
  std::set<std::string> machines;
  for (const auto& id : ids) {
    auto points = history.trend(id, request.limit);
    TB_CHECK_INPUT(!points.empty(), history.path(), "--scenario", "no recorded results for scenario '", id, "'");
    const auto per_machine = series_per_machine(std::move(points));
    split += per_machine.size() > 1;
    for (const auto& [machine, machine_points] : per_machine) {
      ++series;
      machines.insert(machine);
      const std::string name = per_machine.size() > 1 ? id + " on " + machine : id;
      ScenarioChanges s{.scenario_id = name, .changes = trend_changes(name, machine_points, request.metric, options)};
      for (const auto& c : s.changes) {
        s.gated.push_back(gated(c, request));
        changes.push_back(c);
      }
      per_scenario.push_back(std::move(s));
    }
  }
  if (!request.junit_path.empty())
    write_file_durably(request.junit_path, junit_from_changes(per_scenario, "trainbench history --changes"));
  // Newest first: by the start of the new level, then by scenario order.
  std::stable_sort(changes.begin(), changes.end(),
                   [](const TrendChange& a, const TrendChange& b) { return a.after.started_at > b.after.started_at; });

  out << "change points in " << trend_metric_label(request.metric)
      << " (E-Divisive means, permutation test p <= " << options.significance << ", at least " << options.min_segment
      << " runs on each side), newest first\n";
  if (split > 0)
    out << split << (split == 1 ? " scenario was" : " scenarios were") << " measured on " << machines.size()
        << " machines: each machine's runs are a series of their own (a change point never spans two)\n";
  out << '\n';
  int failing = 0;
  if (!changes.empty()) {
    TextTable table;
    table.titles = {"scenario", "last old run", "first new run", "commits", "change [95% CI]", "p", "runs since", ""};
    table.right = {false, false, false, false, true, true, true, false};
    for (const auto& c : changes) {
      const ChangePoint& cp = c.change;
      std::string change = percent(cp.ratio);
      change += cp.ratio_valid ? " [" + percent(cp.ratio_low) + ", " + percent(cp.ratio_high) + "]" : " [no interval]";
      std::string note = c.regression ? "regression" : "improvement";
      if (c.contended_nearby) note += ", contended runs nearby: may be the load's";
      if (gated(c, request)) {
        note += ", FAILS the gate";
        ++failing;
      }
      char p[16];
      std::snprintf(p, sizeof p, "%.3f", cp.p_value);
      table.rows.push_back({c.scenario_id, c.before.run_id, c.after.run_id,
                            commit_of(c.before) + ".." + commit_of(c.after), change, p, std::to_string(c.runs_since),
                            note});
    }
    write_text_table(out, table, TextLayout{.align_titles = true});
    out << '\n';
    print_shared_moves(changes, series, request.metric, out);
  }
  out << changes.size() << (changes.size() == 1 ? " change point" : " change points") << " in ";
  if (series == ids.size()) out << series << (series == 1 ? " scenario" : " scenarios");
  else out << series << " series (" << ids.size() << (ids.size() == 1 ? " scenario" : " scenarios") << " by machine)";
  if (request.fail_pct) {
    char gate[96];
    std::snprintf(gate, sizeof gate, "; gate: a regression of at least %g%% in the newest %d runs: ", *request.fail_pct,
                  request.window);
    out << gate << (failing == 0 ? "none, passed" : std::to_string(failing) + " found, failing (exit 1)");
  }
  out << '\n';
  return as_int(failing > 0 ? ExitCode::failure : ExitCode::ok);
}

}  // namespace tb::cli
