#include <trainbench/reporters/capacity_comparisons.hpp>

#include <algorithm>

namespace tb::report {

bool is_capacity_run(const RunResult& run) {
  if (!run.capacity || run.capacity->batch_search.empty() || run.scenarios.empty()) return false;
  return std::all_of(run.scenarios.begin(), run.scenarios.end(), [&](const ScenarioResult& s) {
    const auto& searches = run.capacity->batch_search;
    return std::any_of(searches.begin(), searches.end(), [&](const BatchSearchEntry& b) {
      return b.model == s.params.model && b.precision == to_string(s.params.precision) &&
             b.best_batch == s.params.batch;
    });
  });
}

RunResult without_speedups(const RunResult& run) {
  RunResult out = run;
  out.baseline_id.clear();
  for (auto& s : out.scenarios) s.comparison.reset();
  if (out.summary) {
    out.summary->geomean.reset();
    out.summary->compared = 0;
  }
  return out;
}

}  // namespace tb::report
