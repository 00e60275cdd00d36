#include <trainbench/reporters/loss_at_step.hpp>

#include <algorithm>

#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

std::size_t common_loss_step(const RunResult& run) {
  std::size_t step = 0;
  for (const auto& s : run.scenarios)
    if (s.status == ScenarioStatus::ok && !s.loss_curve.empty())
      step = step == 0 ? s.loss_curve.size() : std::min(step, s.loss_curve.size());
  return step;
}

std::string loss_column_title(std::size_t step) {
  return step == 0 ? "loss start→end" : "loss step 1→" + std::to_string(step);
}

std::string loss_cell(const ScenarioResult& s, std::size_t step) {
  if (step == 0 || s.loss_curve.size() < step) return fixed(s.loss_start, 4) + "→" + fixed(s.loss_end, 4);
  return fixed(s.loss_curve.front(), 4) + "→" + fixed(s.loss_curve[step - 1], 4);
}

}  // namespace tb::report
