// The phases of a training step, shared by the timer, NVTX ranges, traces and reports. `comm` is
// data-parallel training's exposed communication: the part of backward, after its compute, spent
// waiting for the gradient all-reduce (training/torch/data_parallel.hpp); zero in one process.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tb {

enum class Phase : int { data_wait = 0, h2d, forward, backward, optimizer, comm };
inline constexpr std::size_t kPhaseCount = 6;
inline constexpr std::array<const char*, kPhaseCount> kPhaseNames = {"data_wait", "h2d",       "forward",
                                                                     "backward",  "optimizer", "comm"};

inline constexpr const char* to_string(Phase p) { return kPhaseNames[static_cast<int>(p)]; }

// The phase named `name` (a Python loop's reply names them); nullopt for any other name.
inline std::optional<Phase> parse_phase(std::string_view name) {
  for (std::size_t i = 0; i < kPhaseCount; ++i)
    if (name == kPhaseNames[i]) return static_cast<Phase>(i);
  return std::nullopt;
}

}  // namespace tb
