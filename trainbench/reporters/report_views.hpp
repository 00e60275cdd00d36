// Read-only views of the "extra" sections that other components add to results.json
// (comparison, loss_parity, summary, profile). Missing or malformed sections read as empty
// optionals, so every reporter renders partial results the same way ("-").
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/results.hpp>

namespace tb::report {

// One field of an extra section, never throwing: `fallback` (false) when `j` is not an object,
// lacks the key or holds another type there, as in a results.json edited by hand.
double field_number(const nlohmann::json& j, const char* key, double fallback = 0.0);
std::string field_text(const nlohmann::json& j, const char* key, const std::string& fallback = "");
std::int64_t field_integer(const nlohmann::json& j, const char* key, std::int64_t fallback = 0);  // rounded, clamped
bool field_flag(const nlohmann::json& j, const char* key);

struct ComparisonView {
  std::string baseline_id;
  double speedup = 0, ci_low = 0, ci_high = 0;
  bool ci_valid = true;  // false: too few segments for a 95% interval
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
  int ok = 0, failed = 0, skipped = 0, oom = 0, diverged = 0, interrupted = 0, crashed = 0, contended = 0;
};
// Counts by status (from run.extra.summary when present, else counted from the scenarios).
StatusCounts status_counts(const RunResult& run);

struct GeomeanView {
  double speedup = 0, ci_low = 0, ci_high = 0;
  bool ci_valid = true;
};
// "1.24x [1.21, 1.28]", or "1.24x (no interval)".
std::string geomean_cell(const GeomeanView& g);
// Statuses whose step times were measured (ok, diverged): their timing columns are shown.
bool has_timing_columns(const ScenarioResult& s);
// "ok", "ok, contended", "diverged": the status column.
std::string status_cell(const ScenarioResult& s);
std::optional<GeomeanView> geomean_of(const RunResult& run);

// extra.profile.traces as {"host": path, "kineto": path}, paths relative to the results dir.
std::map<std::string, std::string> traces_of(const ScenarioResult& s);

// extra.profile: the profiling pass of one scenario.
struct ProfileView {
  std::map<std::string, std::string> traces;  // kind -> path relative to the results dir
  std::optional<std::int64_t> window_steps;
  std::optional<double> overhead_vs_timed;  // window step time / timed median - 1
};
std::optional<ProfileView> profile_of(const ScenarioResult& s);

// extra.capacity of one scenario (FLOPs, MFU and the optional time-to-train projection).
struct ProjectionView {
  double target_samples = 0, time_s = 0, ci_low_s = 0, ci_high_s = 0, device_hours = 0;
  std::optional<double> cost;  // absent (or null) without a price
};
struct ScenarioCapacityView {
  std::optional<double> flops_per_sample;  // flops_per_sample.total
  double achieved_flops_per_s = 0, peak_flops_per_s = 0, mfu = 0;
  std::string peak_source;
  // capacity.mfu_error, or the same explanation for an MFU above 100% in a results file written
  // before that field existed; "" when the MFU is a utilisation.
  std::string mfu_error;
  std::optional<ProjectionView> projection;
};
std::optional<ScenarioCapacityView> capacity_of(const ScenarioResult& s);

// run.extra.capacity: batch-size searches and memory fits, one entry per model and precision.
struct BatchSearchView {
  std::string model, precision;
  std::int64_t max_batch = 0, best_batch = 0;  // 0: even the first probe did not fit
  double best_samples_per_s = 0;
  bool hit_limit = false;  // the search limit fit, so the true maximum may be larger
  std::vector<std::pair<std::int64_t, bool>> probes;  // (batch, fits) in the order taken
};
struct MemoryFitView {
  std::string model, precision;
  double fixed_bytes = 0, per_sample_bytes = 0;
  std::optional<double> r2;
  std::optional<std::int64_t> memory_bytes;  // the limit this entry predicted for, if recorded
  std::int64_t predicted_max_batch = 0;
};
struct RunCapacityView {
  std::vector<BatchSearchView> batch_search;
  std::vector<MemoryFitView> memory_fit;
  std::int64_t memory_limit_bytes = 0;  // 0 when unknown
  std::string limit_source;
  bool empty() const { return batch_search.empty() && memory_fit.empty(); }
};
RunCapacityView run_capacity_of(const RunResult& run);

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

// "1.71x [1.63, 1.87]", or "0.95x [no CI]" when there is no interval.
std::string speedup_interval(const ComparisonView& c);
// "speedup [lo, hi] verdict", or "-" without a comparison.
std::string speedup_cell(const ScenarioResult& s);

// Half-width of the median's 95% interval in milliseconds: "±0.052"; "n/a" when there is no
// interval (too few segments).
std::string ci_halfwidth_ms(const ScenarioResult& s);

}  // namespace tb::report
