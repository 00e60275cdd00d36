// Times one optimizer step and its phases. On the CPU a monotonic clock; on CUDA, events
// recorded on the current stream at each phase boundary (data wait stays a host measurement:
// it is the time the training thread blocked on the loader). All storage is allocated up front:
// the hot path records and nothing else.
#pragma once
#include <array>
#include <memory>

#include <c10/core/Device.h>

#include <trainbench/measure/phase.hpp>

namespace tb {

struct StepSample {
  double step_s = 0;
  std::array<double, kPhaseCount> phase_s{};
  double loss = 0;      // mean loss over the step's micro-batches
  bool stepped = true;  // false when the gradient scaler skipped the optimizer step
  // Data-parallel steps: all-reduce time hidden behind backward's compute (phase_s[comm] is the
  // exposed part).
  double overlapped_comm_s = 0;
};

// Boundaries the trainer marks in one optimizer step of `accumulation` micro-batches (the same
// structure as Trainer::step): the start, one per phase of each micro-batch (data_wait, h2d,
// forward, backward), and the optimizer's. The CUDA timer allocates exactly this many events.
inline constexpr int kMicroBatchPhases = 4;
constexpr int boundaries_per_step(int accumulation) { return 2 + kMicroBatchPhases * accumulation; }

class StepTimer {
 public:
  virtual ~StepTimer() = default;
  // Host clock or CUDA events depending on the device; `max_marks` bounds boundaries per step
  // (boundaries_per_step): one more is a bug in the step's structure and throws.
  static std::unique_ptr<StepTimer> create(c10::Device device, int max_marks);

  virtual void start_step() = 0;
  // Closes phase `p`, which ran since the previous boundary.
  virtual void end_phase(Phase p) = 0;
  // Waits for the step's device work and fills step_s and phase_s.
  virtual void finish_step(StepSample& out) = 0;
};

}  // namespace tb
