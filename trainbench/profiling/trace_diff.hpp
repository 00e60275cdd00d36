// What changed down to the operators between two traces of the same training step (Kineto
// traces, or any Chrome trace with operator events), without LibTorch.
//
// Each operator (category cpu_op / operator, or a trainbench host span) and each GPU kernel,
// memcpy or memset is attributed to a phase: the innermost record-function range that encloses
// it on its thread (category user_annotation, trainbench's "phase" spans, or a DataLoader range
// "enumerate(DataLoader)#..."), ProfilerStep#N excluded; a kernel takes the phase of the runtime call that launched it (by correlation id).
// Range names carrying "trainbench.<phase>" (trace_ranges.hpp) read as <phase>; others as named;
// operators outside every range fall in "loader" on a data-loader worker thread (thread_name
// metadata holding "loader-"), else in "(no phase)". Self time is an event's duration minus
// its direct children's on the same thread (a kernel's self time is its duration).
//
// Figures are per profiled step when the trace has ProfilerStep# ranges (or trainbench "step"
// spans), so windows of different lengths compare; otherwise per trace.
#pragma once
#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb::profiling {

struct OpFigures {
  double count = 0;     // calls per step
  double self_us = 0;   // self time per step, microseconds
  double total_us = 0;  // duration per step (children included), microseconds
};

struct TraceOpKey {
  std::string phase;
  std::string kind;  // "op" or "kernel"
  std::string name;
  auto operator<=>(const TraceOpKey&) const = default;
};

struct TraceProfile {
  std::string path;
  int steps = 0;  // ProfilerStep# ranges found (0: figures are per trace)
  std::map<TraceOpKey, OpFigures> ops;
};

// Reads a trace file (.json or .json.gz). InputError naming the file (and the event) when it is
// not a JSON trace: unreadable, not JSON, no traceEvents array, a complete event ("ph":"X")
// without numeric ts and dur.
TraceProfile read_trace_profile(const std::string& path);
// The same from parsed JSON; `path` only names the source in errors.
TraceProfile profile_trace(const nlohmann::json& trace, const std::string& path);

struct OpChange {
  TraceOpKey key;
  OpFigures old_figures, new_figures;  // zero on the side where it is absent
  double self_change_us() const { return new_figures.self_us - old_figures.self_us; }
  double count_change() const { return new_figures.count - old_figures.count; }
};

struct PhaseDiff {
  std::string phase;
  double old_self_us = 0, new_self_us = 0;  // every operator and kernel of the phase, per step
  std::vector<OpChange> added;              // only in NEW, largest self time first
  std::vector<OpChange> removed;            // only in OLD, largest self time first
  std::vector<OpChange> changed;            // in both, largest |self time change| first (count changes break ties)
};

struct TraceDiff {
  std::string old_path, new_path;
  int old_steps = 0, new_steps = 0;
  std::vector<PhaseDiff> phases;  // trainbench's phase order first, then by name
};

// Per phase, every added, removed and changed operator (changed: count or self time differs).
TraceDiff diff_traces(const TraceProfile& old_trace, const TraceProfile& new_trace);

// The `top` largest changes of each list in each phase.
void print_trace_diff(const TraceDiff& diff, std::size_t top, std::ostream& out);
nlohmann::json trace_diff_json(const TraceDiff& diff, std::size_t top);

// Across phases: the `top` operators whose self time changed most (added and removed included),
// one line each, for `compare`'s summary.
std::vector<OpChange> largest_changes(const TraceDiff& diff, std::size_t top);
std::string describe_change(const OpChange& change);

}  // namespace tb::profiling
