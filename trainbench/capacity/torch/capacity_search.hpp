// Capacity planning over a matrix: per model and precision, the largest batch that fits (growth
// then bisection, OOM-safe) and the throughput-optimal batch, a memory fit (fixed + per-sample
// bytes) and the largest batch it predicts for other memory sizes.
#pragma once
#include <map>
#include <string>
#include <utility>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/runner/torch/runner.hpp>

namespace tb {

struct CapacityFinding {
  int max_batch = 0;
  int best_batch = 0;
};

// Runs the searches; fills run.capacity (its batch searches, memory fits and memory limit). Key of the returned map: (model, precision name).
std::map<std::pair<std::string, std::string>, CapacityFinding> search_capacity(const MatrixSpec& spec,
                                                                               const RunOptions& options,
                                                                               RunResult& run);

// trainbench capacity: the searches alone, saved as a run (results.json + reports).
RunResult run_capacity(const MatrixSpec& spec, const RunOptions& options);

}  // namespace tb
