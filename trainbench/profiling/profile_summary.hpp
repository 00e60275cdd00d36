// What the CUPTI records of a profiling window say, in numbers for results.json
// (scenario.extra["profile"]["cupti"]): GPU busy / idle per step, GPU time per host phase,
// top kernels, copy bandwidth by direction, CUPTI overhead and dropped records.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/measure/phase.hpp>
#include <trainbench/profiling/gpu_activity.hpp>
#include <trainbench/profiling/host_recorder.hpp>

namespace tb::profiling {

struct StepGpuStat {
  std::int64_t step = -1;
  double wall_s = 0;      // host step span
  double gpu_busy_s = 0;  // union of kernel/memcpy/memset intervals inside the step span
  double idle_share = 0;  // 1 - busy / wall
};

// GPU work launched while the host was in a phase (by the launching API call's start time).
struct PhaseGpuStat {
  std::string name;
  double kernel_s = 0;
  double memcpy_s = 0;
  double memset_s = 0;
  std::uint64_t kernels = 0;
};

struct KernelStat {
  std::string name;
  std::uint64_t count = 0;
  double total_s = 0;
  double mean_s = 0;
  double share = 0;  // of all kernel time
};

struct CopyStat {
  CopyKind direction = CopyKind::other;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  double total_s = 0;
  double bandwidth_gb_s = 0;  // bytes / total_s / 1e9
};

struct ProfileSummary {
  std::vector<StepGpuStat> steps;
  double window_s = 0;        // sum of step walls, or the GPU activity extent without steps
  double gpu_busy_s = 0;      // busy inside the window
  double gpu_idle_share = 0;  // 1 - gpu_busy_s / window_s
  std::array<PhaseGpuStat, kPhaseCount> phases;
  double unattributed_s = 0;            // GPU work whose launch is outside every phase span (or unmatched)
  std::vector<KernelStat> top_kernels;  // by total time, at most top_n
  std::vector<CopyStat> copies;         // one per direction seen
  double overhead_s = 0;                // CUPTI overhead records
  std::uint64_t dropped_records = 0;
  std::uint64_t kernel_count = 0;
  std::uint64_t api_call_count = 0;
};

// Length of the union of [begin, end) intervals clipped to [lo, hi). Intervals need not be sorted.
std::int64_t union_length_ns(std::vector<std::pair<std::int64_t, std::int64_t>> intervals, std::int64_t lo,
                             std::int64_t hi);

// phases_and_steps: host spans with category kCategoryStep (per-step stats) and kCategoryPhase
// (named by kPhaseNames; attribution). All timestamps on the host timeline (shifted records).
ProfileSummary summarize(const DecodedRecords& records, const std::vector<HostSpan>& phases_and_steps,
                         std::size_t top_n = 20);

nlohmann::json to_json(const ProfileSummary& s);

}  // namespace tb::profiling
