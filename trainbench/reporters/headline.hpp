// What every report says before its tables, decided once: the status counts and the sentence
// that states them, whether the run needs a look ("trouble"), the geomean speed-up (one, or one
// per workload), and the notes on scenarios that did not finish cleanly with their reasons. The
// HTML, Markdown and console reporters only format this model, so the three never disagree on
// what counts as trouble or which counts are stated.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <trainbench/reporters/report_views.hpp>
#include <trainbench/results/results.hpp>

namespace tb::report {

// A scenario's message, or "(no reason recorded)" when it has none.
std::string reason_of(const ScenarioResult& s);

struct StatusCounts {
  int ok = 0, failed = 0, skipped = 0, oom = 0, diverged = 0, interrupted = 0, crashed = 0, contended = 0;
};
// Counts by status (from run.summary when present, else counted from the scenarios).
StatusCounts status_counts(const RunResult& run);

// Skipped scenarios grouped by their reason, in the order each reason first appears: a matrix
// that sweeps GPU-only settings on a CPU skips dozens for three reasons, and a line per scenario
// would bury the rest of the report.
struct SkipGroup {
  std::string reason;
  std::vector<std::string> ids;
};
std::vector<SkipGroup> skip_groups(const RunResult& run);

// "1.35x [1.30, 1.40] against resnet50/fp32/w0/a1/b32", or "- (no scenario at the baseline's
// settings)" ("-" in a run without its summary): a workload's geomean with what it is against.
std::string workload_geomean_text(const WorkloadGroup& g);

// One part of the status-count sentence: "7 ok", "1 contended".
struct CountPart {
  int count = 0;
  std::string label;  // "ok", "failed", ..., "loss-parity warning(s)" (plural as the count needs)
  // Not a status but a caution (contention, loss drift): the HTML report highlights it.
  bool caution = false;
};

// The geomean speed-up as the headline states it.
struct WorkloadGeomean {
  std::string workload;  // "resnet50", "mlp@synthetic"
  std::string value;     // "1.35x [1.30, 1.40]", or "-" (no geomean, or no scenario at the baseline's settings)
  std::string detail;    // workload_geomean_text: the value with what it is against
};
struct HeadlineGeomean {
  bool shown = false;  // the run has a baseline (shows_speedups)
  // Several workloads: one each, in the order they first appear (never one over different models).
  std::vector<WorkloadGeomean> workloads;
  // One workload: the run's geomean, "1.24x [1.21, 1.28]"; nullopt when the run has none.
  std::optional<std::string> value;
  bool per_workload() const { return !workloads.empty(); }
};

// A scenario the warnings name: one that did not finish ok, or one measured under contention.
struct ScenarioNote {
  enum class Kind { status, contended };
  Kind kind = Kind::status;
  const ScenarioResult* scenario = nullptr;
  std::string reason;  // reason_of for a status note; the disturbance's reason for contention
};

struct Headline {
  StatusCounts counts;
  int loss_parity_warnings = 0;  // scenarios whose loss drifted past its tolerance
  // Anything beyond skips that a reader must look at: a scenario that failed, ran out of memory,
  // diverged, was interrupted or crashed, a contended measurement, or a loss-parity warning.
  bool trouble = false;
  // ok, failed, skipped and oom always; diverged, interrupted, crashed, contended and
  // loss-parity warnings only when there are any.
  std::vector<CountPart> count_parts;
  HeadlineGeomean geomean;
  // In the run's order; a scenario that is both not ok and contended has its status note first.
  std::vector<ScenarioNote> notes;
  std::vector<SkipGroup> skips;                // skipped scenarios by reason
  std::vector<const ScenarioResult*> drifted;  // loss parity past its tolerance, in the run's order
};

// The headline of `run`; its pointers point into `run`, which must outlive it.
Headline headline_of(const RunResult& run);

}  // namespace tb::report
