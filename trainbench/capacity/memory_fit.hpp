// Linear memory model peak_bytes = fixed + per_sample * batch, fitted to batch-search probes,
// to predict the largest batch for a memory size that was not probed (e.g. a bigger GPU).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/capacity/batch_search.hpp>

namespace tb::capacity {

struct MemoryFit {
  double fixed_bytes = 0;       // intercept: weights, optimizer state, workspace
  double per_sample_bytes = 0;  // slope: activations per sample
  double r2 = 0;                // coefficient of determination (1 when the points are exact)
  int points = 0;
};

// Ordinary least squares over (batch, peak_bytes) pairs. std::nullopt with `why` set when the
// fit is undetermined: fewer than two points, or all batches identical.
std::optional<MemoryFit> fit_memory(const std::vector<std::pair<int, std::int64_t>>& batch_peak,
                                    std::string* why = nullptr);

// The fitting probes with a known peak (fits && peak_bytes > 0) as fit input.
std::optional<MemoryFit> fit_memory(const std::vector<Probe>& probes, std::string* why = nullptr);

// Largest batch whose predicted peak is <= memory_bytes (floor((memory - fixed) / per_sample));
// 0 when even one sample doesn't fit; -1 when the slope is not positive (no prediction).
int predict_max_batch(const MemoryFit& fit, std::int64_t memory_bytes);

// Predicted peak bytes at a batch.
double predict_peak_bytes(const MemoryFit& fit, int batch);

// The fit as results.json's run capacity section keeps it, with its prediction for memory_bytes.
MemoryFitEntry memory_fit_entry(const std::string& model, const std::string& precision, const MemoryFit& fit,
                                std::int64_t memory_bytes);

}  // namespace tb::capacity
