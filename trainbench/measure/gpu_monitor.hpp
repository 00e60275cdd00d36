// GPU clocks, temperature, power and clocks-event ("throttle") reasons from NVML, so that a
// scenario measured on a GPU that slowed itself down (too hot, at its power limit, a hardware
// slowdown) says so in the results instead of passing for a regression.
//
// NVML is opened with dlopen("libnvidia-ml.so.1") at run time: the library ships with the
// driver, not the CUDA toolkit, so there is no link-time dependency and a machine without a
// driver builds and runs the same binary; available() is then false with the reason.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

// The clocks-event reason bits of nvml.h (nvmlClocksEventReason*, formerly
// nvmlClocksThrottleReason*; same values).
namespace nvml_reason {
inline constexpr std::uint64_t kGpuIdle = 0x1;
inline constexpr std::uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kDisplayClockSetting = 0x100;

// The reasons that mark a scenario `throttled`: the GPU slowed down because of heat or a
// hardware/external power event. Not included, on purpose: sw_power_cap (a GPU under a full
// training load routinely runs at its power limit; that is the card's steady state, recorded
// but not a disturbance), gpu_idle (seen at segment edges between steps), and the settings ones
// (applications/display clocks, sync boost), which are configuration, not interference.
inline constexpr std::uint64_t kThrottleMask =
    kHwSlowdown | kSwThermalSlowdown | kHwThermalSlowdown | kHwPowerBrakeSlowdown;
}  // namespace nvml_reason

// Names of the set bits, lowest first: "gpu_idle", "applications_clocks_setting",
// "sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
// "hw_power_brake_slowdown", "display_clock_setting"; an unknown bit is "unknown_0x<hex>".
std::vector<std::string> decode_clocks_event_reasons(std::uint64_t mask);

// True when mask has a bit of nvml_reason::kThrottleMask.
bool is_throttling(std::uint64_t mask);

// One reading of one device. A field NVML does not support on the device is nullopt.
struct GpuSample {
  unsigned index = 0;
  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> mem_clock_mhz;
  std::optional<unsigned> max_sm_clock_mhz;
  std::optional<unsigned> temperature_c;
  std::optional<double> power_w;
  std::optional<std::uint64_t> clocks_event_reasons;
};

// A loaded NVML. Construction never throws: a missing library, a missing symbol, a failing
// nvmlInit or no device leave available() false with reason() saying which.
class NvmlLibrary {
 public:
  explicit NvmlLibrary(const std::string& library = "libnvidia-ml.so.1");
  ~NvmlLibrary();  // nvmlShutdown (NVML counts inits) and dlclose
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The process-wide instance (loaded on first use, kept until exit).
  static const NvmlLibrary& shared();

  bool available() const { return device_count_ > 0; }
  const std::string& reason() const { return reason_; }  // empty when available
  unsigned device_count() const { return device_count_; }
  // nullopt when unavailable or index is out of range; fields NVML refuses are nullopt.
  std::optional<GpuSample> sample(unsigned index) const;
  // The device's energy counter since the driver loaded, in millijoules
  // (nvmlDeviceGetTotalEnergyConsumption: Volta and newer). nullopt when unavailable, the
  // driver lacks the call, or the device does not support it.
  std::optional<std::uint64_t> total_energy_mj(unsigned index) const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  void* handle_ = nullptr;
  bool initialized_ = false;
  unsigned device_count_ = 0;
  std::string reason_;
};

// What one device did over a scenario's segments.
struct GpuDeviceLoad {
  unsigned index = 0;
  int samples = 0;
  std::optional<unsigned> min_sm_clock_mhz;
  std::optional<unsigned> max_sm_clock_mhz;  // the device's maximum, for scale
  std::optional<unsigned> min_mem_clock_mhz;
  std::optional<unsigned> max_temperature_c;
  std::optional<double> max_power_w;
  std::uint64_t clocks_event_reasons = 0;  // OR over all samples
  bool throttled() const { return is_throttling(clocks_event_reasons); }
};

struct GpuLoad {
  bool available = false;
  std::string reason;  // why unavailable, or why throttled; empty otherwise
  std::vector<GpuDeviceLoad> devices;
  bool throttled = false;  // any device throttled (nvml_reason::kThrottleMask)
};

// Samples the devices at segment begin and end (call sample() at both; a reading costs about
// a millisecond per device, so never inside the timed steps) and keeps the extremes.
class GpuSampler {
 public:
  // devices empty: all of the library's devices.
  explicit GpuSampler(const NvmlLibrary& nvml = NvmlLibrary::shared(), std::vector<unsigned> devices = {});
  void sample();
  void add(const GpuSample& s);  // folds one reading in (sample() uses it; tests feed fixtures)
  GpuLoad result() const;

 private:
  const NvmlLibrary& nvml_;
  std::vector<unsigned> devices_;
  std::vector<GpuDeviceLoad> loads_;
};

// {"index","samples","min_sm_clock_mhz","max_sm_clock_mhz","min_mem_clock_mhz",
//  "max_temperature_c","max_power_w" (null unknown),"clocks_event_reasons_mask",
//  "clocks_event_reasons":[names],"throttled"}
void to_json(nlohmann::json& j, const GpuDeviceLoad& d);
// {"available","reason","throttled","devices":[...]}
void to_json(nlohmann::json& j, const GpuLoad& g);
// Lenient, as results.json's sections are: a missing or mistyped field takes its default (the
// reason names are read from the mask, not the list).
void from_json(const nlohmann::json& j, GpuDeviceLoad& d);
void from_json(const nlohmann::json& j, GpuLoad& g);

}  // namespace tb
