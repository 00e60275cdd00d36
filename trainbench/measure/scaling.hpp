// The run's scaling analysis: data-parallel scenarios grouped into series that differ only in
// world size, their efficiency against world size 1, DDP's own overhead, and a projection to
// larger world sizes (capacity/scaling_projection.hpp) checked against the measured sizes.
#pragma once
#include <string>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/results/results.hpp>

namespace tb {

// The series a scenario belongs to: its id without the world size; for strong scaling also
// without the per-rank batch, which the world size sets, and with the global batch instead
// ("mlp/fp32/w0/a1/strong (global batch 64)").
std::string scaling_series_label(const ScenarioParams& p);

// Where a data-parallel scenario's bandwidth was measured, e.g. "gloo over loopback, one node
// (2 ranks)" or "nccl, 2 nodes (16 ranks)", from the backend and the ranks' hosts.
std::string comm_topology(const DataParallelSection& dp);

// For every series with a data-parallel member (world_size > 1, or world size 1 through the
// reducer alone):
//   reference: its world size 1 scenario without the reducer alone (reducer "auto"), status ok with a throughput;
//   efficiency(n) = global samples/s at n / (n * samples/s of the reference), written to each ok
//       member (and to its data_parallel section with efficiency_reference_id);
//   ddp_overhead = 1 - samples/s(world size 1 through the reducer) / samples/s(reference);
//   model: calibrated on the ok member with the largest world size > 1 that measured a bus
//       bandwidth (compute = its slowest rank's compute, overlap = its overlapped_comm_s,
//       alpha from its latency_s), projected at 8, 64, 512 and every measured size, and checked
//       against every measured size > 1 (the calibration point itself flagged as such).
// Sets run.scaling (nullopt when the run has no data-parallel scenario). Efficiencies written by
// an earlier analysis are cleared first, so annotating a merged run starts clean.
void annotate_scaling(RunResult& run);

}  // namespace tb
