// The host description google/benchmark puts in its JSON "context" (num_cpus, mhz_per_cpu,
// cpu_scaling_enabled, caches, load_avg), read the way its sysinfo.cc does on Linux, so that
// gbench.json carries real values and tools reading either file see the same thing. Captured
// once at run start into the environment manifest (environment["host"]); reports rendered later
// read it from there, never from the machine they happen to run on.
//
// Unknown values follow google/benchmark: num_cpus 0, mhz_per_cpu 0, caches [], load_avg [],
// cpu_scaling_enabled absent. Nothing here throws on an unreadable file.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

struct CacheInfo {
  std::string type;  // as sysfs spells it: "Data", "Instruction", "Unified"
  int level = 0;
  std::int64_t size = 0;  // bytes
  int num_sharing = 0;    // logical CPUs sharing this cache
};

struct SystemInfo {
  int num_cpus = 0;                         // online logical CPUs (sysconf), 0 unknown
  double mhz_per_cpu = 0;                   // 0 unknown
  std::optional<bool> cpu_scaling_enabled;  // any governor other than "performance"; unknown
                                            // without cpufreq (VMs, containers)
  std::vector<CacheInfo> caches;            // cpu0's caches, in index order
  std::vector<double> load_avg;             // 1, 5, 15 minutes at capture time; empty unknown
};

// The first "cpu MHz" value of /proc/cpuinfo text (x86; absent on most ARM kernels).
std::optional<double> parse_cpuinfo_mhz(std::string_view cpuinfo);
// A cpufreq file (cpuinfo_max_freq, in kHz) as MHz.
std::optional<double> parse_cpufreq_khz(std::string_view text);
// A sysfs cache size: "32K", "1024K", "32M", or plain bytes.
std::optional<std::int64_t> parse_cache_size(std::string_view text);
// How many CPUs a sysfs cpu list names: "0-3,8,10-11" -> 7.
std::optional<int> parse_cpu_list_count(std::string_view text);
// How many CPUs a sysfs cpu mask sets: "00000000,0000000f" -> 4 (google/benchmark reads this
// one; used when shared_cpu_list is missing).
std::optional<int> parse_cpu_mask_count(std::string_view text);
// Whether a scaling_governor value lets the clock move (anything but "performance").
bool governor_scales(std::string_view governor);

// cpu0's caches from a sysfs cache folder (…/cpu0/cache): index0, index1, … until one is
// missing; an index whose level, type or size cannot be read is skipped.
std::vector<CacheInfo> read_caches(const std::filesystem::path& cache_dir);

// mhz_per_cpu: /proc/cpuinfo "cpu MHz", else cpu0's cpufreq/cpuinfo_max_freq.
// (google/benchmark tries tsc_freq_khz and cpuinfo_max_freq before /proc/cpuinfo; the current
// "cpu MHz" is preferred here because it is what the CPU ran at, and on VMs it is often the only
// one there is.)
SystemInfo read_system_info();

// {"num_cpus","mhz_per_cpu","cpu_scaling_enabled" (absent unknown),"caches":[{"type","level",
//  "size","num_sharing"}],"load_avg":[1m,5m,15m]}
void to_json(nlohmann::json& j, const CacheInfo& c);
void from_json(const nlohmann::json& j, CacheInfo& c);
void to_json(nlohmann::json& j, const SystemInfo& s);
void from_json(const nlohmann::json& j, SystemInfo& s);

}  // namespace tb
