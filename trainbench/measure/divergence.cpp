#include <trainbench/measure/divergence.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tb {

std::optional<std::string> detect_divergence(std::span<const double> loss) {
  if (loss.empty()) return std::nullopt;
  char buf[160];
  if (!std::isfinite(loss.front())) return std::string("loss was not finite from the first step on");
  // Whichever comes first, explosion or non-finite value, is the reason given.
  const double limit = kDivergenceFactor * std::max(std::abs(loss.front()), kDivergenceFloor);
  for (std::size_t i = 1; i < loss.size(); ++i) {
    if (!std::isfinite(loss[i])) {
      std::snprintf(buf, sizeof buf, "loss became non-finite at step %zu (last finite value %.3g)", i, loss[i - 1]);
      return std::string(buf);
    }
    if (std::abs(loss[i]) > limit) {
      std::snprintf(buf, sizeof buf, "loss exploded: %.3g at step %zu, more than %.0fx its first value %.3g", loss[i],
                    i, kDivergenceFactor, loss.front());
      return std::string(buf);
    }
  }
  return std::nullopt;
}

}  // namespace tb
