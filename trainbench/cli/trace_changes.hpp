// `compare`'s operator-level addendum: for each compared scenario whose profiling pass wrote a
// Kineto trace in both runs, the operators whose self time changed most (trace_diff.hpp).
#pragma once
#include <cstddef>
#include <ostream>
#include <string>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/results/results.hpp>

namespace tb::cli {

// `old_location` / `new_location`: the results directory or results.json each run was read from
// ("" for a run from the history database: its traces are not known, nothing is printed). A trace
// that is missing or unreadable is a note on `out`, never a failure of the comparison.
void print_trace_changes(const RunComparison& c, const RunResult& old_run, const std::string& old_location,
                         const RunResult& new_run, const std::string& new_location, std::size_t top, std::ostream& out);

}  // namespace tb::cli
