#include <trainbench/measure/contended_rounds.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tb {

namespace {

std::string format(const char* fmt, double a, double b, double c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

void append(std::string& to, const std::string& what) {
  if (what.empty()) return;
  if (!to.empty()) to += "; ";
  to += what;
}

}  // namespace

SegmentLoad arm_load(const Disturbance& d, long ticks_per_s) {
  SegmentLoad a;
  a.available = d.available;
  a.wall_s = d.wall_s;
  a.num_cpus = d.num_cpus;
  a.ticks_per_s = ticks_per_s;
  a.other_cpu_cores = d.other_cpu_cores;
  const double ticks = std::round(d.wall_s * std::max(1, d.num_cpus) * static_cast<double>(ticks_per_s));
  a.total_ticks = ticks > 0 ? static_cast<std::uint64_t>(ticks) : 0;
  a.steal_ticks = static_cast<std::uint64_t>(std::round(d.steal_fraction * static_cast<double>(a.total_ticks)));
  a.gpu_throttled = d.gpu && d.gpu->throttled;
  return a;
}

ArmContention judge_arm(const SegmentLoad& arm, const RoundContentionOptions& options) {
  ArmContention out;
  if (!arm.available || !(arm.wall_s > 0)) return out;
  const double cpus = std::max(1, arm.num_cpus);
  // Other processes: one tick per CPU of quantisation over the segment, as host_load.cpp.
  const double resolution = cpus / (static_cast<double>(std::max(1L, arm.ticks_per_s)) * arm.wall_s);
  if (arm.other_cpu_cores - resolution >= options.thresholds.other_cpu_cores)
    append(out.reason, format("other processes used %.2f cores over %.2f s (threshold %.2f)", arm.other_cpu_cores,
                              arm.wall_s, options.thresholds.other_cpu_cores));
  out.steal_judged = arm.total_ticks >= options.min_window_ticks && arm.total_ticks > 0;
  if (out.steal_judged) {
    const double total = static_cast<double>(arm.total_ticks);
    const double fraction = static_cast<double>(arm.steal_ticks) / total;
    if (fraction - cpus / total >= options.thresholds.steal_fraction)
      append(out.reason, format("steal %.1f%% of CPU time over %.2f s (threshold %.1f%%)", 100 * fraction, arm.wall_s,
                                100 * options.thresholds.steal_fraction));
  }
  if (arm.gpu_throttled) append(out.reason, "GPU thermal or hardware slowdown");
  out.contended = !out.reason.empty();
  return out;
}

RoundContention judge_round(int round, const SegmentLoad& old_arm, const SegmentLoad& new_arm,
                            const RoundContentionOptions& options) {
  RoundContention out;
  out.round = round;
  const ArmContention old_side = judge_arm(old_arm, options), new_side = judge_arm(new_arm, options);
  if (old_side.contended) append(out.reason, "OLD: " + old_side.reason);
  if (new_side.contended) append(out.reason, "NEW: " + new_side.reason);
  out.contended = old_side.contended || new_side.contended;
  return out;
}

PairedContention judge_session(std::span<const RoundContention> rounds, int budget_rounds, double max_contended_share) {
  if (budget_rounds < 1) throw std::invalid_argument("judge_session: budget_rounds must be at least 1");
  if (!(max_contended_share >= 0 && max_contended_share < 1))
    throw std::invalid_argument("judge_session: max_contended_share must be in [0, 1)");
  PairedContention out;
  // A small epsilon: a third of 30 is 10 contended rounds, not 9 by rounding.
  out.allowed = static_cast<int>(std::floor(max_contended_share * budget_rounds + 1e-9));
  for (const RoundContention& r : rounds) {
    ++out.measured;
    if (!r.contended) {
      ++out.clean;
      continue;
    }
    ++out.dropped;
    out.dropped_rounds.push_back(r.round);
    out.reasons.push_back("round " + std::to_string(r.round + 1) + ": " + r.reason);
  }
  out.refused = out.dropped > out.allowed;
  return out;
}

std::string PairedContention::summary() const {
  std::string s = std::to_string(dropped) + " of " + std::to_string(measured) + " rounds dropped (contended)";
  if (refused) s += ", more than the " + std::to_string(allowed) + " the budget allows: refused";
  for (std::size_t i = 0; i < reasons.size(); ++i) s += (i == 0 ? ": " : "; ") + reasons[i];
  return s;
}

std::vector<double> clean_values(std::span<const double> values, std::span<const RoundContention> rounds) {
  if (values.size() != rounds.size()) throw std::invalid_argument("clean_values: one value per round");
  std::vector<double> out;
  for (std::size_t j = 0; j < values.size(); ++j)
    if (!rounds[j].contended) out.push_back(values[j]);
  return out;
}

}  // namespace tb
