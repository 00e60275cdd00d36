// One macro per training-loop region that feeds both profilers: an NVTX range (for Nsight) and
// a host span in the active HostRecorder (for trainbench's Chrome trace and the CUPTI
// summaries, which need category "step" / "phase" spans). Outside the profiling window the
// host part costs one atomic load; the NVTX part follows TB_NVTX_* (compiled out without
// TRAINBENCH_NVTX, switchable with nvtx::set_enabled).
//
//   void Trainer::step(...) {
//     TB_PROFILE_STEP();
//     { TB_PROFILE_PHASE(Phase::forward); ... }
#pragma once
#include "harness/core/phase.hpp"
#include "harness/profiling/host_recorder.hpp"
#include "harness/profiling/nvtx.hpp"

namespace tb::profiling {

// Host span for a phase, named by kPhaseNames (static strings, as the recorder requires).
class PhaseSpan : public HostSpanScope {
 public:
  explicit PhaseSpan(Phase p, std::int64_t step = -1) noexcept
      : HostSpanScope(to_string(p), kCategoryPhase, step) {}
};

}  // namespace tb::profiling

#define TB_PROFILE_CONCAT_INNER(a, b) a##b
#define TB_PROFILE_CONCAT(a, b) TB_PROFILE_CONCAT_INNER(a, b)

// Optional argument: the optimizer-step index (summaries number steps in order without it).
#define TB_PROFILE_STEP(...)                                                             \
  TB_NVTX_STEP();                                                                        \
  const ::tb::profiling::HostSpanScope TB_PROFILE_CONCAT(tb_profile_step_, __LINE__) {   \
    "step", ::tb::profiling::kCategoryStep __VA_OPT__(, ) __VA_ARGS__ \
  }

#define TB_PROFILE_PHASE(phase)                                                        \
  TB_NVTX_PHASE(phase);                                                                \
  const ::tb::profiling::PhaseSpan TB_PROFILE_CONCAT(tb_profile_phase_, __LINE__) { phase }
