// The scenario parameters that take one of a fixed set of names (device, optimizer, scaling,
// reducer, memory format, optimizer implementation, loop, compile mode) as enums. The names are parsed once, where a
// matrix or a results file is read; everything after compares enum values, and the names come
// back only in ids, keys and JSON through to_string, spelled as matrices write them.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

enum class DeviceKind { cpu, cuda };  // resolved: a matrix's "auto" never gets here
enum class OptimizerKind { adam, adamw, sgd };
enum class ScalingMode { weak, strong };       // strong: the matrix's batch is the global one
enum class ReducerMode { automatic, always };  // "auto": c10d's Reducer only with several ranks
enum class MemoryFormatKind { contiguous, channels_last };
enum class OptimizerImpl { for_loop, foreach, fused };
// Whose training loop measures the scenario: trainbench's C++ one, or the user's Python code run
// by a worker process (docs/python-loop.md).
enum class LoopKind { cpp, python };
// torch.compile's modes, Python loops only; eager: not compiled.
enum class CompileMode { eager, default_mode, reduce_overhead, max_autotune, max_autotune_no_cudagraphs };

// Each enum's names, in enum order: what matrices, ids and results.json write.
template <typename E>
struct ChoiceNames;
template <>
struct ChoiceNames<DeviceKind> {
  static constexpr std::array<std::string_view, 2> names = {"cpu", "cuda"};
};
template <>
struct ChoiceNames<OptimizerKind> {
  static constexpr std::array<std::string_view, 3> names = {"adam", "adamw", "sgd"};
};
template <>
struct ChoiceNames<ScalingMode> {
  static constexpr std::array<std::string_view, 2> names = {"weak", "strong"};
};
template <>
struct ChoiceNames<ReducerMode> {
  static constexpr std::array<std::string_view, 2> names = {"auto", "always"};
};
template <>
struct ChoiceNames<MemoryFormatKind> {
  static constexpr std::array<std::string_view, 2> names = {"contiguous", "channels_last"};
};
template <>
struct ChoiceNames<OptimizerImpl> {
  static constexpr std::array<std::string_view, 3> names = {"for_loop", "foreach", "fused"};
};

template <>
struct ChoiceNames<LoopKind> {
  static constexpr std::array<std::string_view, 2> names = {"cpp", "python"};
};
template <>
struct ChoiceNames<CompileMode> {
  static constexpr std::array<std::string_view, 5> names = {"eager", "default", "reduce-overhead", "max-autotune",
                                                            "max-autotune-no-cudagraphs"};
};

template <typename E>
concept ScenarioChoice = requires {
  ChoiceNames<E>::names;
};

template <ScenarioChoice E>
std::string to_string(E value) {
  return std::string(ChoiceNames<E>::names[static_cast<std::size_t>(value)]);
}

// The value named `name`; nullopt for a name that is not one of E's.
template <ScenarioChoice E>
std::optional<E> parse_choice(std::string_view name) {
  const auto& names = ChoiceNames<E>::names;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

// E's names as strings, in enum order: the "allowed" list of an error message, an axis's choices.
template <ScenarioChoice E>
const std::vector<std::string>& choice_names() {
  static const std::vector<std::string> names(ChoiceNames<E>::names.begin(), ChoiceNames<E>::names.end());
  return names;
}

}  // namespace tb
