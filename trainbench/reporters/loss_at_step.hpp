// The loss column of the scenario tables. Loss curves differ in length (a noisy scenario runs
// more measured steps), so "first → last" would set one scenario's step 40 against another's
// step 90 and read like divergence; every row shows the loss at one common step instead.
#pragma once
#include <cstddef>
#include <string>

#include <trainbench/results/results.hpp>

namespace tb::report {

// The last optimizer step (1-based) every ok scenario with a loss curve reached: the shortest
// such curve's length; 0 when no scenario recorded one.
std::size_t common_loss_step(const RunResult& run);

// "loss step 1→37", or "loss start→end" when `step` is 0.
std::string loss_column_title(std::size_t step);

// "2.2959→0.0270": the first loss and the loss at `step`; the recorded start→end when the
// scenario has no curve that long.
std::string loss_cell(const ScenarioResult& s, std::size_t step);

}  // namespace tb::report
