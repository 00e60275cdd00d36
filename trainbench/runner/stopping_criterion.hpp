// When to stop measuring, as a small plug-in (after nvbench's stopping_criterion): a segment asks
// it after every step, the schedule asks it after every round. The session and the schedule only
// ask; what "enough" means lives here. One criterion today, the drift-aware interval of the
// matrix's `steps` section (StoppingRule); another (e.g. a fixed step count for A/B workers, or
// an entropy rule) is one more class and one more case in make_stopping_criterion.
#pragma once
#include <memory>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/results/results.hpp>

namespace tb {

// A segment's rule as numbers, for an executor that runs the segment elsewhere (a Python loop's
// worker) and applies it there: stop at max_steps, or at min_steps once budget_s is measured.
struct SegmentLimits {
  int min_steps = 1, max_steps = 1;
  double budget_s = 0;
};

class StoppingCriterion {
 public:
  virtual ~StoppingCriterion() = default;
  // A segment that has measured `steps` steps in `measured_s` seconds is long enough. Called
  // after every measured step, so it must stay cheap: no allocation, no I/O.
  virtual bool segment_done(int steps, double measured_s) const = 0;
  // Wall time one segment is meant to take; also bounds its re-warm steps.
  virtual double segment_budget_s() const = 0;
  // segment_done's rule as limits; a criterion that cannot say it in these terms cannot drive a
  // remote segment (throws std::logic_error).
  virtual SegmentLimits segment_limits() const = 0;
  // The scenario's timing so far is good enough: no extra rounds needed.
  virtual bool converged(const Distribution& timing) const = 0;
  // results.json's stop_reason for a scenario that ended with `timing`.
  virtual const char* stop_reason(const Distribution& timing) const = 0;
};

// The matrix's rule: each of `rounds` segments measures between ceil(min_steps / rounds) and
// ceil(max_steps / rounds) steps, stopping at time_budget_s / rounds seconds once past the
// minimum; converged when the drift-aware 95% interval is within +-target_rel_ci of the median.
class IntervalStoppingCriterion final : public StoppingCriterion {
 public:
  explicit IntervalStoppingCriterion(const StoppingRule& rule);
  bool segment_done(int steps, double measured_s) const override;
  double segment_budget_s() const override { return segment_budget_s_; }
  SegmentLimits segment_limits() const override { return {segment_min_, segment_max_, segment_budget_s_}; }
  bool converged(const Distribution& timing) const override;
  const char* stop_reason(const Distribution& timing) const override;

  int segment_min_steps() const { return segment_min_; }
  int segment_max_steps() const { return segment_max_; }

 private:
  int segment_min_ = 1, segment_max_ = 1;
  double segment_budget_s_ = 0;
  double target_rel_ci_ = 0;
};

std::unique_ptr<StoppingCriterion> make_stopping_criterion(const StoppingRule& rule);

}  // namespace tb
