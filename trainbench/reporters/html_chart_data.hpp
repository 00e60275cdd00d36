// The data block of the HTML report: run identity plus one spec per chart, computed from the
// run alone (no statistics). The page's script draws exactly the charts listed here, so the
// number of charts is known without a browser and `window.__tbChartsDrawn` can be checked
// against it.
#pragma once
#include <nlohmann/json.hpp>

#include <trainbench/results/results.hpp>

namespace tb {

// {"run_id", "matrix", "baseline_id", "charts": [{"id", "title", "kind", ...}]} where kind is
//   "speedup"  bars with [ci_low, ci_high] whiskers per scenario that has extra.comparison
//   "phases"   stacked bars, ms per optimizer step per phase
//   "scaling"  lines of samples/s against an x axis ("workers" or "batch"), one line per group
//              of scenarios that differ only in that axis (groups with >= 2 points)
//   "loss"     loss curves of one model, one line per scenario, coloured by precision
nlohmann::json html_chart_data(const RunResult& run);

}  // namespace tb
