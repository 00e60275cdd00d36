// Did training diverge? A benchmark of a loop whose loss went to NaN or blew up measures
// arithmetic on garbage (denormals, NaN propagation), not the training step the user cares
// about, so such a scenario gets the status "diverged": its speed figures are kept, labelled,
// and never counted in speedups, geomeans or comparisons.
#pragma once
#include <optional>
#include <span>
#include <string>

namespace tb {

// A loss above kDivergenceFactor x max(|first loss|, kDivergenceFloor) has exploded. Training
// from random initialisation starts near its worst loss (ln(classes) for a classifier), so a
// hundredfold rise is never a slow start.
inline constexpr double kDivergenceFactor = 100.0;
inline constexpr double kDivergenceFloor = 1e-3;

// The reason the loss curve (one value per optimizer step, warm-up included) diverged, e.g.
// "loss became non-finite at step 12 (last finite 3.4e+21)", or std::nullopt.
std::optional<std::string> detect_divergence(std::span<const double> loss_curve);

}  // namespace tb
