#include <trainbench/runner/stopping_criterion.hpp>

#include <algorithm>

#include <trainbench/measure/stats.hpp>

namespace tb {

namespace {
int ceil_div(int a, int b) { return (a + b - 1) / b; }
}  // namespace

IntervalStoppingCriterion::IntervalStoppingCriterion(const StoppingRule& rule) {
  const int rounds = std::max(1, rule.rounds);
  segment_min_ = std::max(1, ceil_div(rule.min_steps, rounds));
  segment_max_ = std::max(segment_min_, ceil_div(rule.max_steps, rounds));
  segment_budget_s_ = rule.time_budget_s / rounds;
  target_rel_ci_ = rule.target_rel_ci;
}

bool IntervalStoppingCriterion::segment_done(int steps, double measured_s) const {
  return steps >= segment_max_ || (steps >= segment_min_ && measured_s >= segment_budget_s_);
}

bool IntervalStoppingCriterion::converged(const Distribution& timing) const {
  return timing.has_interval() && stats::relative_ci_halfwidth(timing) <= target_rel_ci_;
}

const char* IntervalStoppingCriterion::stop_reason(const Distribution& timing) const {
  if (converged(timing)) return "converged";
  return timing.has_interval() ? "rounds" : "no_interval";
}

std::unique_ptr<StoppingCriterion> make_stopping_criterion(const StoppingRule& rule) {
  return std::make_unique<IntervalStoppingCriterion>(rule);
}

}  // namespace tb
