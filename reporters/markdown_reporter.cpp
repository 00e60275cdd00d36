#include "reporters/markdown_reporter.hpp"

#include "reporters/report_format.hpp"
#include "reporters/report_views.hpp"

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

}  // namespace

void MarkdownReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  using namespace report;
  std::ostream& os = *ctx.out;
  const auto counts = status_counts(run);

  std::vector<std::string> warnings;
  for (const auto& s : run.scenarios) {
    if (auto lp = loss_parity_of(s); lp && !lp->ok)
      warnings.push_back("⚠️ **loss parity**: " + code(s.id) + " drifted " +
                         percent(lp->rel_drift, 2) + "% from " + code(lp->reference_id) +
                         " (tolerance " + percent(lp->tolerance, 2) + "%)");
  }
  int loss_warnings = static_cast<int>(warnings.size());
  for (const auto& s : run.scenarios) {
    const std::string reason = s.message.empty() ? "(no reason recorded)" : cell(s.message);
    if (s.status == ScenarioStatus::failed)
      warnings.push_back("❌ **failed** " + code(s.id) + ": " + reason);
    else if (s.status == ScenarioStatus::oom)
      warnings.push_back("💥 **out of memory** " + code(s.id) + ": " + reason);
    else if (s.status == ScenarioStatus::skipped)
      warnings.push_back("⏭️ **skipped** " + code(s.id) + ": " + reason);
  }

  // Verdict line first: a reader of a PR comment sees the outcome without scrolling.
  const bool trouble = counts.failed > 0 || counts.oom > 0 || loss_warnings > 0;
  os << "### " << (trouble ? "⚠️" : "✅") << " trainbench " << code(run.run_id) << ": geomean speedup ";
  if (auto g = geomean_of(run))
    os << "**" << times(g->speedup) << "** [" << fixed(g->ci_low, 2) << ", " << fixed(g->ci_high, 2)
       << "]";
  else
    os << "-";
  os << " · " << counts.ok << " ok · " << counts.failed << " failed · " << counts.skipped
     << " skipped · " << counts.oom << " oom";
  if (loss_warnings > 0)
    os << " · " << loss_warnings << " loss-parity warning" << (loss_warnings == 1 ? "" : "s");
  os << "\n\n";
  if (!run.matrix_name.empty() || !run.baseline_id.empty()) {
    os << "Matrix " << code(run.matrix_name.empty() ? "-" : run.matrix_name) << ", baseline "
       << code(run.baseline_id.empty() ? "-" : run.baseline_id) << ".\n\n";
  }
  for (const auto& w : warnings) os << "- " << w << '\n';
  if (!warnings.empty()) os << '\n';

  os << "| scenario | status | step ms (±CI) | samples/s | speedup [95% CI] | verdict | "
        "phases % d/h/f/b/o | loss start→end | peak mem |\n";
  os << "|---|---|--:|--:|--:|---|---|---|--:|\n";
  for (const auto& s : run.scenarios) {
    os << "| " << code(s.id) << " | " << to_string(s.status) << " | ";
    if (s.status != ScenarioStatus::ok) {
      os << "- | - | - | - | - | - | - |\n";
      continue;
    }
    os << millis(s.step_time_s.median) << " " << ci_halfwidth_ms(s) << " | " << rate(s.samples_per_s)
       << " | ";
    // A speed-up that changes the training result is not a win: the verdict and loss cells
    // carry a warning marker instead.
    const auto lp = loss_parity_of(s);
    const bool drifted = lp && !lp->ok;
    auto c = comparison_of(s);
    if (!c) os << "- | " << (drifted ? "⚠️ loss parity" : "-") << " | ";
    else if (c->verdict == "baseline") os << "1.00x | baseline | ";
    else
      os << times(c->speedup) << " [" << fixed(c->ci_low, 2) << ", " << fixed(c->ci_high, 2)
         << "] | " << (c->verdict.empty() ? "-" : c->verdict) << (drifted ? " ⚠️ loss parity" : "")
         << " | ";
    std::string loss = fixed(s.loss_start, 4) + "→" + fixed(s.loss_end, 4);
    if (drifted) loss += " ⚠️ drift " + percent(lp->rel_drift, 2) + "%";
    os << phase_shares(s) << " | " << loss << " | " << bytes(peak_memory_bytes(s)) << " |\n";
  }

  if (run.environment.is_object() && !run.environment.empty()) {
    std::vector<std::pair<std::string, std::string>> env;
    flatten(run.environment, "", env);
    os << "\n<details><summary>Environment</summary>\n\n| key | value |\n|---|---|\n";
    for (const auto& [k, v] : env) os << "| " << cell(k) << " | " << cell(v) << " |\n";
    os << "\n</details>\n";
  }
}

}  // namespace tb
