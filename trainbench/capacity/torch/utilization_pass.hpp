// After the timed scenarios: model FLOPs utilization against a matmul peak measured on the spot
// (same device, same precision; a datasheet table only as a labelled fallback), and, when the
// matrix names a training target, time-to-train, device-hours and cost per scenario.
#pragma once

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/runner/run_listener.hpp>

namespace tb {

// Fills scenario.capacity for every ok scenario with a FLOP count and
// run.peaks (extra.peaks) with the peaks measured. Matrix keys read from "capacity":
//   "target": "1e9 tokens" | "3 epochs" | "50000" (samples), "devices": N,
//   "price_per_device_hour": X, "avg_power_watts": W, "measure_peak": true
// Never throws: a failure (e.g. a bad capacity.target) is a warning on `progress`, so the
// results measured so far are always saved.
void add_utilization(RunResult& run, const MatrixSpec& spec, RunListener* listener);

}  // namespace tb
