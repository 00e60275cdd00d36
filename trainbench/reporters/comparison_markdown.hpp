// A Markdown summary of a run-vs-run comparison (`compare`, `ab`) sized for a pull-request
// comment or a CI job's summary page ($GITHUB_STEP_SUMMARY): the gate's answer in the heading,
// whether the comparison was paired, the geomean(s), then one row per scenario with the
// scenarios the gate failed or did not judge first (scenario_outcomes), the others by change.
// Beyond `max_rows` rows the rest goes into a collapsed <details> block, so a 200-scenario
// matrix stays a readable comment. GitHub-flavoured Markdown; no HTML besides <details>.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include <trainbench/measure/comparison.hpp>

namespace tb {

// `title`: the command, e.g. "trainbench ab"; `gate_pct`: the --fail-on-regression threshold,
// none without a gate (the heading then counts verdicts instead of the gate's answer).
std::string markdown_from_comparison(const RunComparison& comparison, const std::string& title,
                                     std::optional<double> gate_pct, std::size_t max_rows = 25);

}  // namespace tb
