// The hardware a run was measured on, read from its environment manifest: what `compare` refuses
// to mix (cpu.model, device, the GPUs) and what separates a history's series, since a step time
// measured on one machine says nothing about a change on another.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

// One name per GPU, from either manifest shape: [{name, ...}, ...] or {name, count}.
std::vector<std::string> gpu_names(const nlohmann::json& environment);

// "Test CPU 9000 (cpu)", "AMD EPYC 9454 + 2x NVIDIA H200 (cuda)": equal labels for runs whose
// cpu.model, device and GPUs are equal (measure/comparison.hpp's environment_differences empty).
std::string machine_label(const nlohmann::json& environment);

}  // namespace tb
