// The environment manifest written into results.json: what ran, where, and from which source.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

// Keys: hostname, os, cpu{model,cores,threads_used}, memory_bytes, host{num_cpus,mhz_per_cpu,
// cpu_scaling_enabled (when known),caches,load_avg} (trainbench/measure/system_info.hpp, at run start),
// device ("cpu"|"cuda"), gpu[{name,index,total_memory_bytes,capability}], cuda_runtime, cudnn,
// driver, torch, compiler, build_type, trainbench, git_revision, git_dirty, command_line, seed,
// started_at (UTC ISO 8601).
nlohmann::json capture_environment(const std::vector<std::string>& command_line, std::uint64_t seed);

}  // namespace tb
