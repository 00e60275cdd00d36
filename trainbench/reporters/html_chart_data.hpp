// The data block of the HTML report: run identity plus one spec per chart, computed from the
// run alone (no statistics). The page's script draws exactly the charts listed here, so the
// number of charts is known without a browser and `window.__tbChartsDrawn` can be checked
// against it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include <trainbench/results/results.hpp>

namespace tb {

// {"run_id", "matrix", "baseline_id", "charts": [{"id", "title", "kind", ...}]} where kind is
//   "speedup"     bars with [ci_low, ci_high] whiskers per scenario that has extra.comparison
//   "phases"      stacked bars, mean µs per sample per phase (per-step time / effective batch)
//   "scaling"     lines of samples/s against an x axis ("workers" or "batch"), one line per
//                 group of scenarios that differ only in that axis (groups with >= 2 points)
//   "capacity"    per batch-size search: samples/s and peak memory of each probe against batch,
//                 the memory fit and the memory budget
//   "loss"        small multiples: loss curves of one model (one model × precision when the
//                 model has more than 4 scenarios), one line per scenario, short labels, and
//                 the last step every scenario reached (report::common_loss_step)
//   "loss_difference"  each reduced-precision scenario's loss minus its fp32 twin's
//                 (extra.loss_parity.reference_id) per step, dashed where parity failed
//   "step_times"  the same groups: every measured step time in order, segment starts marked
// Charts drawn as small multiples carry "group" ("loss", "steps", "capacity").
nlohmann::json html_chart_data(const RunResult& run);

// "resnet · amp_bf16" -> "resnet-amp_bf16": a chart id usable as an element id.
std::string chart_slug(const std::string& name);

}  // namespace tb
