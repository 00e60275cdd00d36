#include <trainbench/reporters/comparison_outcome.hpp>

#include <trainbench/reporters/report_format.hpp>

namespace tb {

namespace {

std::string figures_of(const ScenarioComparison& s) {
  if (!s.compared) return "";
  std::string t = "old " + report::fixed(s.old_median_s * 1e3, 3) + " ms, new " +
                  report::fixed(s.new_median_s * 1e3, 3) + " ms per step, change " +
                  report::signed_percent(0.01 * s.change_pct);
  if (s.speedup.valid)
    t += ", speedup " + report::fixed(s.speedup.ratio, 3) + "x [" + report::fixed(s.speedup.low, 3) + ", " +
         report::fixed(s.speedup.high, 3) + "]";
  t += ", verdict " + std::string(to_string(s.verdict));
  if (s.sequential) t += ", " + sequential_rounds_text(*s.sequential);
  return t;
}

}  // namespace

std::string sequential_rounds_text(const SequentialRecord& r) {
  std::string t = r.verdict + " after " + std::to_string(r.rounds) + (r.rounds == 1 ? " round" : " rounds");
  if (r.dropped > 0) t += " (" + std::to_string(r.dropped) + " contended dropped)";
  return t;
}

std::vector<ScenarioOutcome> scenario_outcomes(const RunComparison& c) {
  using Kind = ScenarioOutcome::Kind;
  std::vector<ScenarioOutcome> outcomes;
  for (const auto& s : c.scenarios) {
    ScenarioOutcome o{.id = s.id, .figures = figures_of(s)};
    if (s.broken) {
      o.kind = Kind::failed;
      o.reason = std::string("broken in NEW: ") + to_string(s.new_status);
    } else if (s.gate_failed()) {
      // Every threshold it failed, in one line: step time, then the matrix's memory and loss gates.
      o.kind = Kind::failed;
      std::string why;
      const auto add = [&why](const std::string& part) { why += (why.empty() ? "" : "; ") + part; };
      if (s.regression) add("slower beyond the gate (" + report::significant(s.gate_pct) + "%)");
      if (s.memory_regression)
        add("peak memory " + report::signed_percent(s.new_peak_bytes / s.old_peak_bytes - 1) + " beyond the gate (" +
            report::significant(*s.memory_gate_pct) + "%)");
      if (s.loss_regression)
        add("loss drifted " + report::fixed(s.loss_drift, 4) + " from OLD's, beyond the gate (" +
            report::significant(*s.loss_gate) + ")");
      o.reason = why;
    } else if (s.contended) {
      o.kind = Kind::skipped;
      o.reason = "not judged: contended measurements (" + s.contention + ")";
    } else if (s.unjudged) {
      o.kind = Kind::skipped;
      o.reason = "not judged: no interval (fewer than 3 segments)";
    } else if (s.undecided) {
      o.kind = Kind::skipped;
      o.reason = "undecided: the interval straddles the gate (" + report::significant(s.gate_pct) + "%) after " +
                 sequential_rounds_text(*s.sequential);
    } else if (!s.compared) {
      o.kind = Kind::skipped;
      o.reason = std::string("not compared: old ") + to_string(s.old_status) + ", new " + to_string(s.new_status);
    }
    outcomes.push_back(std::move(o));
  }
  for (const auto& id : c.missing_in_new)
    outcomes.push_back({.id = id, .kind = Kind::failed, .reason = "ok in OLD, missing in NEW"});
  return outcomes;
}

}  // namespace tb
