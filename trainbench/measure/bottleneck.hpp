// Which resource limits a scenario's training step, from what the run measured: the phase shares
// of the timing pass, and (profiled with CUPTI) how long the GPU sat idle. One sentence per
// scenario in every report, so the reader need not work it out from the phase columns.
#pragma once
#include <string>

#include <trainbench/results/results.hpp>

namespace tb {

// The documented thresholds (README "Reading a report"), checked in this order; the first that
// holds names the bottleneck:
//   communication  exposed all-reduce (phase comm) >= 25% of the step
//   data           data wait >= 25%: the loader does not keep up (more workers, pinned memory,
//                  a faster decode)
//   copy           host-to-device copies >= 20%
//   host/launch    GPU idle >= 50% of the profiled steps (CUPTI), with neither of the above:
//                  the host cannot issue kernels fast enough (CUDA graphs, fused optimizers,
//                  a larger batch)
//   compute        otherwise: forward, backward and optimizer dominate (on a GPU without a CUPTI
//                  profile the verdict says that launch-bound cannot be told apart)
inline constexpr double kCommBoundShare = 0.25;
inline constexpr double kDataBoundShare = 0.25;
inline constexpr double kCopyBoundShare = 0.20;
inline constexpr double kLaunchBoundIdleShare = 0.50;

struct Bottleneck {
  enum class Kind { none, communication, data, copy, host_launch, compute };
  Kind kind = Kind::none;  // none: the scenario has no phase times (not measured)
  std::string reason;      // "data wait 74% of the step", with the figures the verdict rests on
  // What the verdict could not see: on a GPU without a CUPTI profile, whether the GPU sat idle.
  bool gpu_idle_unknown = false;
};
const char* to_string(Bottleneck::Kind k);  // "communication-bound", "data-bound", ...

Bottleneck bottleneck_of(const ScenarioResult& s);

}  // namespace tb
