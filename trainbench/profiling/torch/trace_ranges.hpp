// Record-function ranges that give a Kineto trace the structure the PyTorch tools expect: each
// profiled step is a "ProfilerStep#N" user annotation (what torch.profiler.profile.step() opens),
// and the phases of the step are record-function ranges nested in it, so TensorBoard's profiler
// plugin and Holistic Trace Analysis see real steps. The data-wait range carries the name the
// plugin counts as DataLoader time ("enumerate(DataLoader)#....__next__") and the optimizer range
// the one it shows as an optimizer ("Optimizer.step#..."); every phase name holds
// "trainbench.<phase>", which trace_diff.hpp reads back.
//
// Ranges are on only while a Kineto pass runs (KinetoPass::start/stop): otherwise a TraceRange
// costs one relaxed atomic load. Names are static strings or prebuilt by the caller; nothing is
// allocated or formatted by trainbench inside the step.
#pragma once
#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include <ATen/record_function.h>

#include <trainbench/measure/phase.hpp>

namespace tb::profiling {

// The Kineto range of each phase, indexed like kPhaseNames.
inline constexpr std::array<const char*, kPhaseCount> kKinetoPhaseRangeNames = {
    "enumerate(DataLoader)#trainbench.data_wait.__next__",  // the plugin's DataLoader role
    "trainbench.h2d",
    "trainbench.forward",
    "trainbench.backward",
    "Optimizer.step#trainbench.optimizer.step",  // the plugin's OptimizerNode
    "trainbench.comm",
};

namespace detail {
inline std::atomic<bool>& trace_ranges_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}
}  // namespace detail

// Switched on by KinetoPass for its window only.
inline void set_trace_ranges_enabled(bool on) { detail::trace_ranges_flag().store(on, std::memory_order_relaxed); }
inline bool trace_ranges_enabled() { return detail::trace_ranges_flag().load(std::memory_order_relaxed); }

// The record scope of a phase's range. USER_SCOPE becomes category "user_annotation" in the
// trace; any other scope "cpu_op". The data wait is a cpu_op: torch-tb-profiler (0.4) drops
// user annotations other than ProfilerStep#, so only as an operator does it count as DataLoader.
constexpr at::RecordScope trace_scope(Phase phase) {
  return phase == Phase::data_wait ? at::RecordScope::FUNCTION : at::RecordScope::USER_SCOPE;
}

// A record function while ranges are on. `name` must outlive the range (a literal, or a string
// prebuilt before the window).
class TraceRange {
 public:
  explicit TraceRange(const char* name, at::RecordScope scope = at::RecordScope::USER_SCOPE) {
    if (!trace_ranges_enabled()) return;
    auto callbacks = at::getStepCallbacksUnlessEmpty(scope);
    if (!callbacks) return;
    range_.emplace(std::move(*callbacks));
    range_->before(std::string_view(name));
  }
  explicit TraceRange(Phase phase) : TraceRange(kKinetoPhaseRangeNames[static_cast<int>(phase)], trace_scope(phase)) {}
  TraceRange(const TraceRange&) = delete;
  TraceRange& operator=(const TraceRange&) = delete;
  // Closes the range early (a phase ends where its timer boundary falls).
  void end() { range_.reset(); }

 private:
  std::optional<at::RecordFunction> range_;
};

// "ProfilerStep#0" ... "ProfilerStep#<count-1>", built before the window.
inline std::vector<std::string> profiler_step_names(int count) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) names.push_back("ProfilerStep#" + std::to_string(i));
  return names;
}

}  // namespace tb::profiling
