// What several reporters derive from a run's results the same way: cells shared by the text
// formats, workload groups, trace links, phase shares (the headline over them: headline.hpp). The sections themselves are typed members of
// the results (results/sections.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/support/json_fields.hpp>

namespace tb::report {

// The lenient field reads (support/json_fields.hpp) are tb:: functions, visible here unqualified.

// "1.24x [1.21, 1.28]", or "1.24x (no interval)".
std::string geomean_cell(const GeomeanSpeedup& g);
// Statuses whose step times were measured (ok, diverged): their timing columns are shown.
bool has_timing_columns(const ScenarioResult& s);

// Whether the reports show speed-ups (geomean, speed-up and verdict columns): only a run with a
// baseline has them. A capacity run has none (each scenario is another model or precision at its
// own best batch), and a column of dashes would say nothing.
inline bool shows_speedups(const RunResult& run) { return !run.baseline_id.empty(); }
// The scenarios of one workload (model, dataset) as the reports group them, with the scenario
// their speed-ups are measured against and their geometric mean.
struct WorkloadGroup {
  std::string workload;     // workload_of (matrix/axis.hpp): "resnet50", "mlp@synthetic"
  std::string baseline_id;  // its scenario with the baseline's settings; "" when it has none
  std::optional<GeomeanSpeedup> geomean;
  std::vector<const ScenarioResult*> scenarios;  // in the run's order
  bool annotated = false;                        // the run has its summary: an empty baseline_id means there is none
};
// One group per workload, in the order the workloads first appear. With several, speed-up
// tables and geomeans are shown per workload; a run of one workload reads as it always did.
std::vector<WorkloadGroup> workload_groups(const RunResult& run);
// Whether the reports group by workload: speed-ups shown and more than one workload.
bool grouped_by_workload(const RunResult& run);
// The scenario table's sections: workload_groups when grouped_by_workload, else one section of
// every scenario in the run's order.
std::vector<WorkloadGroup> table_sections(const RunResult& run);
// "resnet50: speed-ups against resnet50/fp32/w0/a1/b32", or "gpt2: no scenario at the
// baseline's settings, no speed-ups" ("gpt2" in a run without its summary): the line over a
// workload's rows.
std::string workload_heading(const WorkloadGroup& g);

// "ok", "ok, contended", "diverged": the status column.
std::string status_cell(const ScenarioResult& s);

// The profile's traces as {"host": path, "kineto": path}, paths relative to the results dir.
std::map<std::string, std::string> traces_of(const ScenarioResult& s);

// run.capacity, or an empty section when the run has none.
const RunCapacitySection& run_capacity_of(const RunResult& run);
bool has_capacity_findings(const RunCapacitySection& c);

// A trace path (relative to ctx.results_dir) made relative to ctx.report_dir.
std::string trace_link(const ReportContext& ctx, const std::string& trace_path);
// Whether the trace is where results.json says (relative to ctx.results_dir): a report rendered
// from results copied without their traces says "missing" instead of linking nowhere.
bool trace_present(const ReportContext& ctx, const std::string& trace_path);

// "6/4/28/44/18" in the canonical phase order; "-" when there are no phases.
std::string phase_shares(const ScenarioResult& s);
// Names of the phases in the canonical order (data_wait, h2d, forward, backward, optimizer).
const std::vector<std::string>& phase_order();
// Share of one phase, 0 when absent.
double phase_share(const ScenarioResult& s, const std::string& phase);

// Peak memory to show: tb::peak_memory_bytes (results.hpp).
using tb::peak_memory_bytes;

// "1.71x [1.63, 1.87]", or "0.95x [no CI]" when there is no interval.
std::string speedup_interval(const ComparisonSection& c);
// "speedup [lo, hi] verdict", or "-" without a comparison.
std::string speedup_cell(const ScenarioResult& s);

// Half-width of the median's 95% interval in milliseconds: "±0.052"; "n/a" when there is no
// interval (too few segments).
std::string ci_halfwidth_ms(const ScenarioResult& s);

}  // namespace tb::report
