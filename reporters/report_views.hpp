// Read-only views of the "extra" sections that other components add to results.json
// (comparison, loss_parity, summary, profile). Missing or malformed sections read as empty
// optionals, so every reporter renders partial results the same way ("-").
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/results.hpp"
#include "reporters/reporter.hpp"

namespace tb::report {

struct ComparisonView {
  std::string baseline_id;
  double speedup = 0, ci_low = 0, ci_high = 0;
  std::string verdict;  // faster | slower | same | noisy | baseline
};
std::optional<ComparisonView> comparison_of(const ScenarioResult& s);

struct LossParityView {
  std::string reference_id;
  double rel_drift = 0, tolerance = 0;
  bool ok = true;
};
std::optional<LossParityView> loss_parity_of(const ScenarioResult& s);

struct StatusCounts {
  int ok = 0, failed = 0, skipped = 0, oom = 0;
};
// Counts by status (from run.extra.summary when present, else counted from the scenarios).
StatusCounts status_counts(const RunResult& run);

struct GeomeanView {
  double speedup = 0, ci_low = 0, ci_high = 0;
};
std::optional<GeomeanView> geomean_of(const RunResult& run);

// extra.profile.traces as {"host": path, "kineto": path}, paths relative to the results dir.
std::map<std::string, std::string> traces_of(const ScenarioResult& s);

// A trace path (relative to ctx.results_dir) made relative to ctx.report_dir.
std::string trace_link(const ReportContext& ctx, const std::string& trace_path);

// "6/4/28/44/18" in the canonical phase order; "-" when there are no phases.
std::string phase_shares(const ScenarioResult& s);
// Names of the phases in the canonical order (data_wait, h2d, forward, backward, optimizer).
const std::vector<std::string>& phase_order();
// Share of one phase, 0 when absent.
double phase_share(const ScenarioResult& s, const std::string& phase);

// Peak memory to show: the CUDA allocator peak when known, else the process RSS peak.
std::int64_t peak_memory_bytes(const ScenarioResult& s);

// "speedup [lo, hi] verdict", or "-" without a comparison.
std::string speedup_cell(const ScenarioResult& s);

// Half-width of the median's 95% interval in milliseconds: "±0.052".
std::string ci_halfwidth_ms(const ScenarioResult& s);

}  // namespace tb::report
