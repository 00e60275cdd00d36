// The capacity tables (per-scenario FLOPs/MFU/projection, batch-size search, memory model) as
// plain-text cells, shared by the console and Markdown reporters so both show the same numbers.
#pragma once
#include <string>
#include <vector>

#include <trainbench/reporters/report_views.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/support/text_table.hpp>

namespace tb::report {

// One row per ok scenario with extra.capacity. All FLOP/s columns share one unit (TFLOP/s when
// any value reaches 1e12, else GFLOP/s), named in the titles. A projection from one round reads
// "29.80 (no interval)"; a column that is "-" in every row (no capacity.target, no price) is
// left out.
TextTable scenario_capacity_table(const RunResult& run);
// The MFU cell of every report: "12.90%", capacity::kMfuErrorCell above 100% (a measurement
// error, never a utilisation), "-" without a peak.
std::string mfu_cell(const ScenarioCapacitySection& c);
// (scenario id, capacity.mfu_error) for every ok scenario whose MFU is a measurement error.
std::vector<std::pair<std::string, std::string>> mfu_errors(const RunResult& run);
// "512", "≥512 (search limit)" when the limit itself fit, "none fits" when nothing did.
std::string max_batch_cell(const BatchSearchEntry& b);
// One row per run.extra.capacity.batch_search entry.
TextTable batch_search_table(const RunCapacitySection& capacity);
// One row per run.extra.capacity.memory_fit entry (peak = fixed + per-sample x batch).
TextTable memory_fit_table(const RunCapacitySection& capacity);
// "memory limit 80.0 GiB (device total)", or "" when the run did not record one.
std::string memory_limit_note(const RunCapacitySection& capacity);

}  // namespace tb::report
