#include <trainbench/cli/comparison_report.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <trainbench/cli/exit_code.hpp>
#include <trainbench/measure/segment_stats.hpp>
#include <trainbench/reporters/comparison_markdown.hpp>
#include <trainbench/reporters/comparison_outcome.hpp>
#include <trainbench/reporters/junit_report.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/text_table.hpp>

namespace tb::cli {

namespace {

std::string format(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

// "1.026 [0.990, 1.063]", or "1.026 [no interval]".
std::string ratio_cell(const stats::RatioInterval& r) {
  return format("%.3f", r.ratio) +
         (r.valid ? " [" + format("%.3f", r.low) + ", " + format("%.3f", r.high) + "]" : std::string(" [no interval]"));
}

// The rows of the table in the new run's order; with several workloads compared, grouped by
// workload, each group under a line naming it.
std::vector<const ScenarioComparison*> table_order(const RunComparison& c, std::vector<std::string>& headings) {
  std::vector<const ScenarioComparison*> rows;
  headings.clear();
  if (c.workloads.empty()) {
    for (const auto& s : c.scenarios) rows.push_back(&s);
    headings.assign(rows.size(), "");
    return rows;
  }
  std::vector<std::string> order;
  for (const auto& s : c.scenarios)
    if (std::find(order.begin(), order.end(), s.workload) == order.end()) order.push_back(s.workload);
  for (const auto& w : order) {
    bool first = true;
    for (const auto& s : c.scenarios) {
      if (s.workload != w) continue;
      rows.push_back(&s);
      headings.push_back(first ? w : "");
      first = false;
    }
  }
  return rows;
}

}  // namespace

void print_comparison_table(const RunComparison& c, std::ostream& out) {
  out << "old: " << c.old_run_id << "\nnew: " << c.new_run_id << "\n";
  if (c.paired)
    out << "paired: one A/B session (" << c.ab_session
        << "), OLD and NEW measured side by side in every round; intervals are paired by round\n";
  if (c.sequential)
    out << "sequential: each gated scenario measured until its verdict was settled or its budget spent; its "
           "interval is the gate's repeated interval (family-wise 95% over every scenario and look)\n";
  out << "\n";
  TextTable table;
  table.titles = {"scenario",
                  "old ms",
                  "new ms",
                  "change",
                  c.sequential ? "speedup OLD/NEW [gate's CI]" : "speedup OLD/NEW [95% CI]",
                  "verdict"};
  table.right = {false, true, true, true, false, false};
  table.fixed_width = {0, 10, 10, 8, 24};
  int counts[4] = {0, 0, 0, 0};
  int regressions = 0;
  std::vector<std::string> headings;
  const auto rows = table_order(c, headings);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ScenarioComparison& s = *rows[i];
    if (!headings[i].empty()) table.rows.push_back({"workload " + headings[i] + ":"});
    if (!s.compared) {
      table.rows.push_back({s.id, std::string("not compared (old ") + to_string(s.old_status) + ", new " +
                                      to_string(s.new_status) + ")" + (s.broken ? "  BROKEN" : "")});
      continue;
    }
    ++counts[static_cast<int>(s.verdict)];
    const std::string interval = ratio_cell(s.speedup);
    std::string verdict = stats::to_string(s.verdict);
    if (s.regression) {
      ++regressions;
      verdict += "  REGRESSION (> " + format("%.1f", s.gate_pct) + "%)";
    }
    if (s.memory_regression) verdict += "  MEMORY (> " + format("%.1f", *s.memory_gate_pct) + "%)";
    if (s.loss_regression) verdict += "  LOSS (drift > " + format("%g", *s.loss_gate) + ")";
    if (s.contended) verdict += "  CONTENDED";
    if (s.unjudged) verdict += "  NOT JUDGED (no interval)";
    if (s.sequential) verdict += ", " + sequential_rounds_text(*s.sequential);
    if (s.undecided) verdict += "  UNDECIDED";
    table.rows.push_back({s.id, format("%.3f", s.old_median_s * 1e3), format("%.3f", s.new_median_s * 1e3),
                          format("%+.1f%%", s.change_pct), interval, verdict});
  }
  write_text_table(out, table, {.align_titles = true});
  out << '\n'
      << counts[0] + counts[1] + counts[2] + counts[3] << " compared: " << counts[0] << " faster, " << counts[1]
      << " slower, " << counts[2] << " same, " << counts[3] << " noisy";
  if (c.geomean_speedup) out << "; geomean speedup " << ratio_cell(*c.geomean_speedup);
  out << '\n';
  // Several workloads: a geomean each, never one over different models.
  for (const auto& w : c.workloads)
    out << "geomean speedup " << w.workload << ": " << ratio_cell(w.geomean_speedup) << " (" << w.compared
        << (w.compared == 1 ? " scenario)\n" : " scenarios)\n");
  // A change shared by (nearly) every scenario looks exactly like the machine's own drift between
  // runs (measured up to +-29% on a shared VM, docs/how-it-measures.md): say so. The machine
  // drifts under every workload alike, so this looks at all of them together.
  if (c.compared >= 3 && !c.paired) {
    int up = 0, down = 0;
    std::vector<stats::RatioInterval> all;
    for (const auto& s : c.scenarios)
      if (s.compared) {
        (s.speedup.ratio > 1 ? up : down) += 1;
        all.push_back(s.speedup);
      }
    const double g = stats::geometric_mean(all).ratio;
    if (std::max(up, down) * 4 >= c.compared * 3 && std::abs(g - 1.0) > 0.05)
      out << "note: " << std::max(up, down) << " of " << c.compared << " scenarios moved together ("
          << format("%+.1f%%", (1.0 / g - 1.0) * 100.0)
          << " step time); a change shared by all scenarios cannot be told apart from the "
             "machine's own drift between runs: re-run both before trusting it, or measure both "
             "builds side by side with `trainbench ab`\n";
  }
  for (const auto& id : c.only_in_old) out << "only in old: " << id << '\n';
  for (const auto& id : c.only_in_new) out << "only in new: " << id << '\n';
  for (const auto& s : c.scenarios)
    if (s.contended) out << "contended: " << s.id << ": " << s.contention << '\n';
  for (const auto& s : c.scenarios) {
    if (!s.sequential) continue;
    const SequentialRecord& r = *s.sequential;
    if (!r.contention.empty() && !s.contended) out << "dropped rounds: " << s.id << ": " << r.contention << '\n';
    if (!s.undecided) continue;
    out << "undecided: " << s.id << ": NEW/OLD " << format("%.3f", r.ratio);
    if (r.valid) out << " [" << format("%.3f", r.low) << ", " << format("%.3f", r.high) << "]";
    out << " neither excludes nor passes a " << format("%.1f", s.gate_pct) << "% slowdown after " << r.rounds
        << " rounds (" << r.end << "; round-to-round noise " << format("%.1f", r.noise_pct) << "%)";
    if (r.rounds_to_settle) out << "; about " << format("%.0f", *r.rounds_to_settle) << " rounds would settle it";
    out << '\n';
  }
  if (regressions > 0) out << "regression: " << regressions << " scenario(s) slower beyond noise\n";
  // The matrix's own gates (params.gates), with the figures they were judged on.
  for (const auto& s : c.scenarios) {
    if (s.memory_regression)
      out << "memory gate: " << s.id << ": peak " << format("%.1f", s.old_peak_bytes / 1048576) << " -> "
          << format("%.1f", s.new_peak_bytes / 1048576) << " MiB ("
          << format("%+.1f%%", (s.new_peak_bytes / s.old_peak_bytes - 1) * 100) << "), threshold "
          << format("%g", *s.memory_gate_pct) << "%\n";
    if (s.loss_regression)
      out << "loss gate: " << s.id << ": loss drifted " << format("%.4f", s.loss_drift)
          << " (relative) from OLD's at the steps both reached, threshold " << format("%g", *s.loss_gate) << '\n';
  }
  int broken = 0;
  for (const auto& s : c.scenarios) broken += s.broken ? 1 : 0;
  broken += static_cast<int>(c.missing_in_new.size());
  if (broken > 0)
    out << "broken: " << broken << " scenario(s) ok in old are failed, oom, diverged, skipped or missing in new\n";
}

void write_aa_noise_floor(const RunComparison& aa, const RunResult& new_run, const std::string& old_location,
                          const std::string& new_location, const std::string& path) {
  NoiseFloor floor = make_noise_floor(aa);
  floor.source["old_path"] = old_location;
  floor.source["new_path"] = new_location;
  if (aa.paired) floor.source["ab_session"] = aa.ab_session;
  floor.source["environment"] = {
      {"cpu_model", new_run.environment.value(nlohmann::json::json_pointer("/cpu/model"), std::string())},
      {"device", new_run.environment.value("device", std::string())}};
  save_noise_floor(floor, path);
}

int gate_exit_code(const RunComparison& c, const std::string& who, std::ostream& err) {
  if (c.broken) {
    err << who
        << ": gate failed: scenarios that were ok in OLD are broken or missing in NEW (see "
           "the table; --allow-broken to accept)\n";
    return as_int(ExitCode::failure);
  }
  if (c.regression) return as_int(ExitCode::failure);
  if (c.contended) {
    err << who
        << ": gate refused: the machine was loaded while some scenarios were measured "
           "(CONTENDED rows); re-run on a quiet machine\n";
    return as_int(ExitCode::contended);
  }
  if (!c.unjudged.empty()) {
    // A gate that judged nothing must not read as a pass: two short runs (a round or two) give
    // a point estimate and no interval, and a 2x slowdown would otherwise go through green.
    std::string ids;
    for (const auto& id : c.unjudged) ids += (ids.empty() ? "" : ", ") + id;
    err << who << ": gate refused: no interval for " << c.unjudged.size() << " scenario"
        << (c.unjudged.size() == 1 ? "" : "s") << " (" << ids << "): fewer than " << stats::kMinSegments
        << " measured segments in OLD or NEW; measure more rounds (steps.rounds)\n";
    return as_int(ExitCode::contended);
  }
  if (!c.undecided.empty()) {
    // Neither a pass nor a fail: the interval still holds both "slower than the gate" and "not".
    std::string ids;
    for (const auto& id : c.undecided) ids += (ids.empty() ? "" : ", ") + id;
    err << who << ": gate undecided for " << c.undecided.size() << " scenario" << (c.undecided.size() == 1 ? "" : "s")
        << " (" << ids
        << "): the budget ran out before the interval excluded or passed the gate's slowdown; give it more "
           "rounds or time (--max-rounds, --time-budget) or a quieter machine (docs/quiet-machine.md)\n";
    return as_int(ExitCode::contended);
  }
  return as_int(ExitCode::ok);
}

void write_ci_outputs(const RunComparison& c, const std::string& who, const CiOutputs& outputs) {
  if (!outputs.junit_path.empty()) write_file_durably(outputs.junit_path, junit_from_comparison(c, who));
  const char* step_summary = std::getenv("GITHUB_STEP_SUMMARY");
  const bool on_github = step_summary != nullptr && *step_summary != '\0';
  if (outputs.markdown_path.empty() && !on_github) return;
  const std::string markdown = markdown_from_comparison(c, who, outputs.gate_pct);
  if (!outputs.markdown_path.empty()) write_file_durably(outputs.markdown_path, markdown);
  if (on_github) {
    // GitHub shows what every step appended: append, never replace another step's summary.
    std::ofstream summary(step_summary, std::ios::app);
    summary << markdown << '\n';
    summary.flush();
    if (!summary) throw OutputError(step_summary, "could not append the Markdown summary ($GITHUB_STEP_SUMMARY)");
  }
}

}  // namespace tb::cli
