#include <trainbench/capacity/memory_fit.hpp>

#include <cmath>
#include <limits>

namespace tb::capacity {

std::optional<MemoryFit> fit_memory(const std::vector<std::pair<int, std::int64_t>>& batch_peak, std::string* why) {
  auto fail = [why](const char* reason) -> std::optional<MemoryFit> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const std::size_t n = batch_peak.size();
  if (n < 2) return fail("memory fit needs at least two probes with a known peak");
  double mean_x = 0, mean_y = 0;
  for (const auto& [b, peak] : batch_peak) {
    mean_x += b;
    mean_y += static_cast<double>(peak);
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (const auto& [b, peak] : batch_peak) {
    const double dx = b - mean_x, dy = static_cast<double>(peak) - mean_y;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx == 0) return fail("memory fit needs at least two different batch sizes");
  MemoryFit fit;
  fit.points = static_cast<int>(n);
  fit.per_sample_bytes = sxy / sxx;
  fit.fixed_bytes = mean_y - fit.per_sample_bytes * mean_x;
  double ss_res = 0;
  for (const auto& [b, peak] : batch_peak) {
    const double r = static_cast<double>(peak) - predict_peak_bytes(fit, b);
    ss_res += r * r;
  }
  // A flat profile (syy == 0) is explained perfectly by the intercept.
  fit.r2 = syy == 0 ? 1.0 : 1.0 - ss_res / syy;
  return fit;
}

std::optional<MemoryFit> fit_memory(const std::vector<Probe>& probes, std::string* why) {
  std::vector<std::pair<int, std::int64_t>> points;
  for (const auto& p : probes)
    if (p.fits && p.peak_bytes > 0) points.emplace_back(p.batch, p.peak_bytes);
  return fit_memory(points, why);
}

double predict_peak_bytes(const MemoryFit& fit, int batch) { return fit.fixed_bytes + fit.per_sample_bytes * batch; }

int predict_max_batch(const MemoryFit& fit, std::int64_t memory_bytes) {
  if (!(fit.per_sample_bytes > 0)) return -1;
  const double room = static_cast<double>(memory_bytes) - fit.fixed_bytes;
  if (room < fit.per_sample_bytes) return 0;
  // A tiny relative epsilon so an exactly-fitting batch is not lost to rounding.
  const double batches = std::floor(room / fit.per_sample_bytes * (1 + 1e-12));
  return batches >= std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : static_cast<int>(batches);
}

MemoryFitEntry memory_fit_entry(const std::string& model, const std::string& precision, const MemoryFit& fit,
                                std::int64_t memory_bytes) {
  return MemoryFitEntry{model,  precision,  fit.fixed_bytes, fit.per_sample_bytes,
                        fit.r2, fit.points, memory_bytes,    predict_max_batch(fit, memory_bytes)};
}

}  // namespace tb::capacity
