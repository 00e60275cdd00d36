#include <trainbench/capacity/scaling_projection.hpp>

#include <algorithm>
#include <stdexcept>

namespace tb::capacity {

double algbw(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0.0; }

double busbw_from_algbw(double algbw_bytes_per_s, int world_size) {
  if (world_size <= 1) return 0.0;
  return algbw_bytes_per_s * 2.0 * (world_size - 1) / world_size;
}

double ring_alpha(double latency_s, int world_size) {
  return world_size > 1 ? latency_s / (2.0 * (world_size - 1)) : 0.0;
}

double ring_allreduce_s(const CommModel& comm, int world_size, double bytes) {
  if (world_size <= 1) return 0.0;
  if (!(comm.busbw_bytes_per_s > 0)) throw std::invalid_argument("ring_allreduce_s: bus bandwidth must be positive");
  const double hops = 2.0 * (world_size - 1);
  return hops * comm.alpha_s + hops / world_size * bytes / comm.busbw_bytes_per_s;
}

double scaling_efficiency(double samples_per_s, int world_size, double reference_samples_per_s) {
  if (!(samples_per_s > 0) || !(reference_samples_per_s > 0) || world_size < 1)
    throw std::invalid_argument("scaling_efficiency: throughputs and world size must be positive");
  return samples_per_s / (world_size * reference_samples_per_s);
}

std::optional<ProjectedPoint> project_step(const StepModel& model, int world_size) {
  if (!(model.compute_s > 0) || model.calibrated_global_batch <= 0 || model.calibrated_world_size < 1 || world_size < 1)
    throw std::invalid_argument("project_step: compute time, global batch and world sizes must be positive");
  const double n = world_size, n_m = model.calibrated_world_size;
  ProjectedPoint p;
  p.world_size = world_size;
  if (model.strong) {
    // Fixed global batch: each rank's share, and (assumed) its compute, shrinks as 1/n.
    p.global_batch = static_cast<double>(model.calibrated_global_batch);
    if (p.global_batch < n) return std::nullopt;
    p.compute_s = model.compute_s * n_m / n;
  } else {
    p.global_batch = static_cast<double>(model.calibrated_global_batch) / n_m * n;
    p.compute_s = model.compute_s;
  }
  p.allreduce_s = ring_allreduce_s(model.comm, world_size, model.gradient_bytes);
  p.exposed_comm_s = std::max(0.0, p.allreduce_s - model.overlap_s);
  p.step_s = p.compute_s + p.exposed_comm_s;
  p.samples_per_s = p.global_batch / p.step_s;
  return p;
}

std::vector<ProjectedPoint> project_scaling(const StepModel& model, const std::vector<int>& world_sizes,
                                            std::optional<double> reference_samples_per_s) {
  double reference = reference_samples_per_s.value_or(0.0);
  if (!(reference > 0)) reference = project_step(model, 1).value().samples_per_s;
  std::vector<ProjectedPoint> points;
  for (const int n : world_sizes)
    if (auto p = project_step(model, n)) {
      p->efficiency = scaling_efficiency(p->samples_per_s, n, reference);
      points.push_back(*p);
    }
  return points;
}

std::vector<int> projection_sizes(const std::vector<int>& measured_world_sizes) {
  std::vector<int> sizes = {8, 64, 512};
  sizes.insert(sizes.end(), measured_world_sizes.begin(), measured_world_sizes.end());
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace tb::capacity
