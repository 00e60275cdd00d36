// The phases of a training step, shared by the timer, NVTX ranges, traces and reports.
#pragma once
#include <array>
#include <cstddef>

namespace tb {

enum class Phase : int { data_wait = 0, h2d, forward, backward, optimizer };
inline constexpr std::size_t kPhaseCount = 5;
inline constexpr std::array<const char*, kPhaseCount> kPhaseNames = {
    "data_wait", "h2d", "forward", "backward", "optimizer"};

inline constexpr const char* to_string(Phase p) { return kPhaseNames[static_cast<int>(p)]; }

}  // namespace tb
