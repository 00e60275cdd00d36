// A capacity run (`trainbench capacity`) measures each model × precision at its own best batch,
// so a speed-up between two of its scenarios compares different models and batches and means
// nothing. New capacity runs name no baseline; runs written before that still carry
// comparisons against their first scenario, and every reporter drops them through this.
#pragma once
#include <trainbench/results/results.hpp>

namespace tb::report {

// True when the run holds a batch-size search and every scenario is one searched model ×
// precision at its best batch: the shape `trainbench capacity` writes.
bool is_capacity_run(const RunResult& run);

// The run without baseline, per-scenario comparisons and geometric-mean speed-up.
RunResult without_speedups(const RunResult& run);

}  // namespace tb::report
