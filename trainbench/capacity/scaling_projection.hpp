// Projection of data-parallel training past the measured world sizes: a MODEL calibrated on one
// measured scenario, not a measurement. Communication is a ring all-reduce,
//   t(n, bytes) = 2(n-1) * alpha + 2(n-1)/n * bytes / busbw,
// with alpha (per-hop latency) from a measured 4-byte all-reduce and busbw (nccl-tests' bus
// bandwidth) from a measured all-reduce of the gradient's size. A step is
//   step(n) = compute(n) + exposed(n),  exposed(n) = max(0, t(n, gradient_bytes) - overlap),
// where overlap is the all-reduce time backward hid at the calibrated size. compute(n) is the
// slowest rank's measured compute for weak scaling (fixed per-rank batch); for strong scaling
// (fixed global batch) it scales linearly with the per-rank batch. The model assumes one node's
// bandwidth at every size: no hierarchy, no inter-node links, no contention.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace tb::capacity {

// nccl-tests' formulas: algbw = bytes / time; busbw = algbw * 2(n-1)/n (what each link carries
// in a ring, comparable across world sizes). 0 for a time <= 0 or n <= 1.
double algbw(double bytes, double seconds);
double busbw_from_algbw(double algbw_bytes_per_s, int world_size);

// The per-hop latency of a ring all-reduce measured at n ranks: latency / (2(n-1)); 0 at n <= 1.
double ring_alpha(double latency_s, int world_size);

struct CommModel {
  double alpha_s = 0;            // per-hop latency
  double busbw_bytes_per_s = 0;  // bus bandwidth
};

// t(n, bytes) above; 0 at n <= 1 (nothing to reduce). std::invalid_argument when n > 1 and the
// bandwidth is not positive.
double ring_allreduce_s(const CommModel& comm, int world_size, double bytes);

// Efficiency at n ranks: global samples/s at n / (n * samples/s at 1). The same formula for weak
// and strong scaling (1 = linear speed-up). std::invalid_argument unless both are positive.
double scaling_efficiency(double samples_per_s, int world_size, double reference_samples_per_s);

// What the model is calibrated on: one measured data-parallel scenario.
struct StepModel {
  bool strong = false;                       // fixed global batch (else fixed per-rank batch)
  int calibrated_world_size = 2;             // n_m
  std::int64_t calibrated_global_batch = 0;  // samples per step over every rank at n_m
  double compute_s = 0;                      // slowest rank's step less its exposed communication, at n_m
  double gradient_bytes = 0;
  double overlap_s = 0;  // all-reduce time backward hid at n_m
  CommModel comm;
};

struct ProjectedPoint {
  int world_size = 1;
  double global_batch = 0;
  double compute_s = 0;
  double allreduce_s = 0;     // t(n, gradient_bytes)
  double exposed_comm_s = 0;  // max(0, allreduce_s - overlap)
  double step_s = 0;          // compute_s + exposed_comm_s
  double samples_per_s = 0;   // global_batch / step_s
  std::optional<double> efficiency;
};

// The model at n ranks; nullopt for strong scaling when n exceeds the global batch (less than
// one sample per rank). std::invalid_argument when compute_s, the global batch or the
// calibrated size is not positive.
std::optional<ProjectedPoint> project_step(const StepModel& model, int world_size);

// The model at each size (those it can project), each with its efficiency against
// reference_samples_per_s when given and positive, else against the model's own world size 1.
std::vector<ProjectedPoint> project_scaling(const StepModel& model, const std::vector<int>& world_sizes,
                                            std::optional<double> reference_samples_per_s);

// The sizes a projection shows: 8, 64, 512 and every measured size, ascending, each once.
std::vector<int> projection_sizes(const std::vector<int>& measured_world_sizes);

}  // namespace tb::capacity
