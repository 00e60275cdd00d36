#include <trainbench/runner/schedule.hpp>

#include <algorithm>
#include <numeric>
#include <random>

namespace tb {

namespace {

// The shuffle's generator is the matrix's seed mixed with this constant, so that it differs from
// the streams the scenarios themselves draw from the same seed (data order, initial weights).
constexpr std::uint64_t kShuffleMix = 0x5e6d5e6dULL;

// SplitMix64's finaliser: a cheap, well-mixed hash of one 64-bit value.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

bool schedule_stopped(const ScheduleHooks& hooks) { return hooks.stop && hooks.stop(); }

}  // namespace

bool measures_round(const StoppingRule& rule, int round, bool converged) {
  return round < rule.max_rounds && (round < rule.rounds || !converged);
}

bool pair_order_coin(std::uint64_t seed, std::size_t i, int round) {
  const auto block = static_cast<std::uint64_t>(round / 2);
  const bool coin = (splitmix64(splitmix64(splitmix64(seed ^ kShuffleMix) + i) + block) & 1u) != 0;
  return (round % 2 == 0) ? coin : !coin;
}

Schedule::Schedule(const StoppingRule& rule, std::uint64_t seed) : rule_(rule), seed_(seed) {}

std::vector<std::size_t> Schedule::still_going(const SegmentExecutor& executor, int next) const {
  std::vector<std::size_t> going;
  for (std::size_t i = 0; i < executor.size(); ++i)
    if (executor.active(i) && measures_round(rule_, next, executor.converged(i))) going.push_back(i);
  return going;
}

void Schedule::run(SegmentExecutor& executor, const ScheduleHooks& hooks) {
  if (rule_.interleave) run_interleaved(executor, hooks);
  else run_sequential(executor, hooks);
  if (schedule_stopped(hooks)) executor.interrupt_unfinished();
  else executor.finish_all();
}

void Schedule::run_interleaved(SegmentExecutor& executor, const ScheduleHooks& hooks) {
  std::mt19937_64 rng(seed_ ^ kShuffleMix);
  std::vector<std::size_t> order(executor.size());
  std::iota(order.begin(), order.end(), 0);
  for (int round = 0; round < rule_.max_rounds && !schedule_stopped(hooks); ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    executor.round_starting(round);
    bool any = false;
    for (const std::size_t i : order) {
      if (schedule_stopped(hooks)) break;
      if (!executor.active(i)) continue;
      if (!measures_round(rule_, round, executor.converged(i))) {
        executor.finish(i);  // past the planned rounds and converged: done
        continue;
      }
      executor.segment(i, round);
      any = true;
    }
    if (schedule_stopped(hooks)) break;
    if (any && hooks.round_finished) hooks.round_finished(round, still_going(executor, round + 1));
    if (hooks.checkpoint) hooks.checkpoint();
    if (!any) break;
  }
}

void Schedule::run_sequential(SegmentExecutor& executor, const ScheduleHooks& hooks) {
  for (std::size_t i = 0; i < executor.size() && !schedule_stopped(hooks); ++i) {
    for (int round = 0; executor.active(i) && !schedule_stopped(hooks); ++round) {
      if (!measures_round(rule_, round, executor.converged(i))) break;
      executor.segment(i, round);
    }
    if (schedule_stopped(hooks)) break;
    if (executor.active(i)) executor.finish(i);
    if (hooks.checkpoint) hooks.checkpoint();
  }
}

}  // namespace tb
