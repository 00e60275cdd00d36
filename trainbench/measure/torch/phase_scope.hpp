// One phase of a training step as a scope: its NVTX range, its Kineto record-function range (only
// during a Kineto pass) and its step-timer boundary open and close together, so the ranges Nsight
// and the PyTorch profiler show are exactly the phases trainbench reports, and no phase can be
// timed without its range or the other way round. Nothing is allocated.
#pragma once
#include <optional>

#include <trainbench/measure/phase.hpp>
#include <trainbench/measure/torch/step_timer.hpp>
#include <trainbench/profiling/nvtx.hpp>
#include <trainbench/profiling/torch/trace_ranges.hpp>

namespace tb {

class PhaseScope {
 public:
  PhaseScope(StepTimer& timer, Phase phase) : timer_(timer), phase_(phase), trace_range_(phase) {
    range_.emplace(phase);
  }
  ~PhaseScope() {
    range_.reset();  // the ranges end where the timer's boundary falls, not after it
    trace_range_.end();
    timer_.end_phase(phase_);
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  StepTimer& timer_;
  Phase phase_;
  profiling::TraceRange trace_range_;
  std::optional<nvtx::ScopedRange> range_;
};

}  // namespace tb
