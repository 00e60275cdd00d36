// OOM-safe search for the largest micro-batch that fits and the throughput-optimal one.
// The caller supplies a callback that runs a few steps at a batch size and reports whether it
// fit (CUDA OOM caught, or peak RSS over a --memory-budget on the CPU) and the samples/s.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <trainbench/capacity/probe.hpp>
#include <trainbench/results/sections.hpp>

namespace tb::capacity {

struct BatchSearchOptions {
  int start = 1;        // first batch probed (rounded up to multiple_of)
  int limit = 1 << 16;  // never probe above this
  double growth = 2.0;  // multiplicative growth until the first failure (> 1)
  int multiple_of = 1;  // every probed batch is a multiple of this (e.g. accumulation steps)
  int max_probes = 32;  // hard cap on callback invocations
};

struct BatchSearchResult {
  int max_batch = 0;   // largest fitting batch found; 0 if even the start doesn't fit
  int best_batch = 0;  // fitting probe with the highest samples/s (0 when none fit)
  double best_samples_per_s = 0;
  std::vector<Probe> probes;  // in the order taken
  bool hit_limit = false;     // the limit fit, so the true maximum may be larger
};

// Grows the batch (x growth) until the first failure, then bisects between the last fit and
// the first failure, down to a resolution of multiple_of. A callback that throws counts as a
// failure whose note is the exception text, except tb::Interrupted (Ctrl-C), which ends the
// search and propagates. The probes' batches are strictly increasing during
// growth, and every batch is probed at most once.
BatchSearchResult search_batch(const std::function<Probe(int)>& try_batch, const BatchSearchOptions& options = {});

// CPU stand-in for a device memory limit: a probe fits when its peak is within the budget.
// budget <= 0 means no budget (always fits).
bool fits_budget(std::int64_t peak_bytes, std::int64_t budget);

// Accumulation steps that keep effective_batch fixed at a micro-batch size; std::invalid_argument
// unless micro_batch divides effective_batch.
int rescale_accumulation(int effective_batch, int micro_batch);

// Largest multiple of `multiple` that is <= value (>= 0).
int round_down_to_multiple(int value, int multiple);

// The search as results.json's run capacity section keeps it.
BatchSearchEntry batch_search_entry(const std::string& model, const std::string& precision,
                                    const BatchSearchResult& result);

}  // namespace tb::capacity
