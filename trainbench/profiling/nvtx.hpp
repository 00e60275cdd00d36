// NVTX ranges around scenario / step / phase, so Nsight Systems timelines line up with
// trainbench's own phases. Header-only (NVTX3 ships with the CUDA toolkit).
//
// Usage in the training loop:
//   TB_NVTX_SCENARIO(id);                 // whole scenario (dynamic name, copied)
//   { TB_NVTX_STEP(); ...                 // one optimizer step
//     { TB_NVTX_PHASE(tb::Phase::forward); ... } }
//
// Without TRAINBENCH_NVTX (CMake option TRAINBENCH_NVTX=OFF or headers missing) the macros compile
// to nothing. With it, a range costs one relaxed atomic load when disabled at run time
// (profile.nvtx=false) and a call through NVTX's no-op stub when no tool is attached.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include <trainbench/measure/phase.hpp>

#if defined(TRAINBENCH_NVTX)
#include <nvtx3/nvtx3.hpp>
#endif

namespace tb::nvtx {

namespace detail {
inline std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> flag{true};
  return flag;
}
}  // namespace detail

// Runtime switch (profile.nvtx). Cheap: ranges check it with a relaxed load.
inline void set_enabled(bool on) { detail::enabled_flag().store(on, std::memory_order_relaxed); }
inline bool enabled() { return detail::enabled_flag().load(std::memory_order_relaxed); }

// True when NVTX support was compiled in.
inline constexpr bool compiled_in() {
#if defined(TRAINBENCH_NVTX)
  return true;
#else
  return false;
#endif
}

inline constexpr const char* kDomainName = "trainbench";
inline constexpr const char* kStepRangeName = "step";
inline constexpr const char* kScenarioRangeName = "scenario";

// One ARGB colour per phase, stable across runs so timelines are easy to read.
inline constexpr unsigned kPhaseColors[kPhaseCount] = {
    0xFF9E9E9E,  // data_wait: grey
    0xFFFF9800,  // h2d: orange
    0xFF2196F3,  // forward: blue
    0xFFF44336,  // backward: red
    0xFF4CAF50,  // optimizer: green
    0xFF795548,  // comm: brown
};
inline constexpr unsigned kStepColor = 0xFF673AB7;      // purple
inline constexpr unsigned kScenarioColor = 0xFF00BCD4;  // cyan

#if defined(TRAINBENCH_NVTX)

struct Domain {
  static constexpr const char* name{kDomainName};
};

namespace detail {

// Registered strings avoid a string copy per range inside the tool.
template <int I>
struct PhaseMessage {
  static constexpr const char* message{kPhaseNames[I]};
};
struct StepMessage {
  static constexpr const char* message{kStepRangeName};
};

inline nvtx3::rgb to_rgb(unsigned argb) {
  return nvtx3::rgb{static_cast<std::uint8_t>((argb >> 16) & 0xFF), static_cast<std::uint8_t>((argb >> 8) & 0xFF),
                    static_cast<std::uint8_t>(argb & 0xFF)};
}

template <int I>
const nvtx3::event_attributes& phase_attributes() {
  static const nvtx3::event_attributes attr{nvtx3::registered_string_in<Domain>::get<PhaseMessage<I>>(),
                                            to_rgb(kPhaseColors[I])};
  return attr;
}

inline const nvtx3::event_attributes& attributes_for(Phase p) {
  switch (p) {
    case Phase::data_wait: return phase_attributes<0>();
    case Phase::h2d: return phase_attributes<1>();
    case Phase::forward: return phase_attributes<2>();
    case Phase::backward: return phase_attributes<3>();
    case Phase::optimizer: return phase_attributes<4>();
    case Phase::comm: return phase_attributes<5>();
  }
  return phase_attributes<0>();
}

inline const nvtx3::event_attributes& step_attributes() {
  static const nvtx3::event_attributes attr{nvtx3::registered_string_in<Domain>::get<StepMessage>(),
                                            to_rgb(kStepColor)};
  return attr;
}

}  // namespace detail

// RAII push/pop in the "trainbench" domain; nothing when disabled at construction.
class ScopedRange {
 public:
  explicit ScopedRange(const nvtx3::event_attributes& attr) noexcept : active_(enabled()) {
    if (active_) nvtxDomainRangePushEx(nvtx3::domain::get<Domain>(), attr.get());
  }
  explicit ScopedRange(Phase p) noexcept : ScopedRange(detail::attributes_for(p)) {}
  // Dynamic names (scenario ids): NVTX copies the string during the push.
  explicit ScopedRange(const std::string& name, unsigned argb = kScenarioColor) noexcept : active_(enabled()) {
    if (active_) {
      const nvtx3::event_attributes attr{nvtx3::message{name.c_str()}, detail::to_rgb(argb)};
      nvtxDomainRangePushEx(nvtx3::domain::get<Domain>(), attr.get());
    }
  }
  ~ScopedRange() {
    if (active_) nvtxDomainRangePop(nvtx3::domain::get<Domain>());
  }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  bool active_;
};

// Instant marker (e.g. "profiling window start").
inline void mark(const std::string& name) {
  if (!enabled()) return;
  const nvtx3::event_attributes attr{nvtx3::message{name.c_str()}};
  nvtxDomainMarkEx(nvtx3::domain::get<Domain>(), attr.get());
}

#else  // !TRAINBENCH_NVTX

class ScopedRange {
 public:
  explicit ScopedRange(Phase) noexcept {}
  explicit ScopedRange(const std::string&, unsigned = 0) noexcept {}
};
inline void mark(const std::string&) {}

#endif

}  // namespace tb::nvtx

namespace tb::profiling {
namespace nvtx = ::tb::nvtx;  // also reachable as tb::profiling::nvtx
}

#define TB_NVTX_CONCAT_INNER(a, b) a##b
#define TB_NVTX_CONCAT(a, b) TB_NVTX_CONCAT_INNER(a, b)

#if defined(TRAINBENCH_NVTX)
#define TB_NVTX_PHASE(phase) \
  const ::tb::nvtx::ScopedRange TB_NVTX_CONCAT(tb_nvtx_phase_, __LINE__) { phase }
#define TB_NVTX_STEP() \
  const ::tb::nvtx::ScopedRange TB_NVTX_CONCAT(tb_nvtx_step_, __LINE__) { ::tb::nvtx::detail::step_attributes() }
#define TB_NVTX_SCENARIO(name) \
  const ::tb::nvtx::ScopedRange TB_NVTX_CONCAT(tb_nvtx_scenario_, __LINE__) { std::string(name) }
#else
#define TB_NVTX_PHASE(phase) static_cast<void>(0)
#define TB_NVTX_STEP() static_cast<void>(0)
#define TB_NVTX_SCENARIO(name) static_cast<void>(0)
#endif
