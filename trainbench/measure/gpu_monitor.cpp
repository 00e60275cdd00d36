#include <trainbench/measure/gpu_monitor.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <utility>

#include <dlfcn.h>

#include <trainbench/support/json_fields.hpp>

namespace tb {
namespace {

// The few NVML declarations used, as in nvml.h (no header needed: it comes with the driver
// development files, which build machines need not have). nvmlReturn_t is an int-sized enum,
// NVML_SUCCESS = 0; clock type NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2; temperature sensor
// NVML_TEMPERATURE_GPU = 0; power is in milliwatts.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;
constexpr int kTemperatureGpu = 0;

struct ReasonName {
  std::uint64_t bit;
  const char* name;
};
constexpr ReasonName kReasonNames[] = {
    {nvml_reason::kGpuIdle, "gpu_idle"},
    {nvml_reason::kApplicationsClocksSetting, "applications_clocks_setting"},
    {nvml_reason::kSwPowerCap, "sw_power_cap"},
    {nvml_reason::kHwSlowdown, "hw_slowdown"},
    {nvml_reason::kSyncBoost, "sync_boost"},
    {nvml_reason::kSwThermalSlowdown, "sw_thermal_slowdown"},
    {nvml_reason::kHwThermalSlowdown, "hw_thermal_slowdown"},
    {nvml_reason::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {nvml_reason::kDisplayClockSetting, "display_clock_setting"},
};

// Looks a function up by name into a typed pointer; false when the library lacks it.
template <typename Fn>
bool bind_symbol(void* handle, Fn*& fn, const char* name) {
  fn = reinterpret_cast<Fn*>(dlsym(handle, name));
  return fn != nullptr;
}

template <typename T>
void keep_min(std::optional<T>& acc, const std::optional<T>& v) {
  if (v) acc = acc ? std::min(*acc, *v) : *v;
}

template <typename T>
void keep_max(std::optional<T>& acc, const std::optional<T>& v) {
  if (v) acc = acc ? std::max(*acc, *v) : *v;
}

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

struct NvmlLibrary::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*device_count)(unsigned*) = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned*) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons (drivers >= 535), else the older
  // nvmlDeviceGetCurrentClocksThrottleReasons; same signature and bits.
  nvmlReturn_t (*event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  // Optional (drivers since 2017); nullptr when missing: energy is then unavailable, not NVML.
  nvmlReturn_t (*total_energy)(nvmlDevice_t, unsigned long long*) = nullptr;
};

std::vector<std::string> decode_clocks_event_reasons(std::uint64_t mask) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t b = std::uint64_t{1} << bit;
    if (!(mask & b)) continue;
    const auto* known =
        std::find_if(std::begin(kReasonNames), std::end(kReasonNames), [b](const ReasonName& r) { return r.bit == b; });
    if (known != std::end(kReasonNames)) {
      names.emplace_back(known->name);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "unknown_0x%llx", static_cast<unsigned long long>(b));
      names.emplace_back(buf);
    }
  }
  return names;
}

bool is_throttling(std::uint64_t mask) { return (mask & nvml_reason::kThrottleMask) != 0; }

NvmlLibrary::NvmlLibrary(const std::string& library) {
  handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* err = dlerror();
    reason_ = std::string("NVML not loaded: ") + (err ? err : library + ": dlopen failed") +
              " (no NVIDIA driver on this machine)";
    return;
  }
  api_ = std::make_unique<Api>();
  Api* api = api_.get();
  const char* missing = nullptr;
  auto need = [&](auto& fn, const char* name) {
    if (!bind_symbol(handle_, fn, name) && missing == nullptr) missing = name;
  };
  need(api->init, "nvmlInit_v2");
  need(api->shutdown, "nvmlShutdown");
  need(api->error_string, "nvmlErrorString");
  need(api->device_count, "nvmlDeviceGetCount_v2");
  need(api->handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  need(api->clock_info, "nvmlDeviceGetClockInfo");
  need(api->max_clock_info, "nvmlDeviceGetMaxClockInfo");
  need(api->temperature, "nvmlDeviceGetTemperature");
  need(api->power_usage, "nvmlDeviceGetPowerUsage");
  if (!bind_symbol(handle_, api->event_reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
    need(api->event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  bind_symbol(handle_, api->total_energy, "nvmlDeviceGetTotalEnergyConsumption");
  if (missing != nullptr) {
    reason_ = std::string("NVML lacks ") + missing + " (driver too old?)";
    return;
  }
  if (const nvmlReturn_t rc = api->init(); rc != kNvmlSuccess) {
    reason_ = std::string("nvmlInit failed: ") + api->error_string(rc);
    return;
  }
  initialized_ = true;
  unsigned count = 0;
  if (const nvmlReturn_t rc = api->device_count(&count); rc != kNvmlSuccess) {
    reason_ = std::string("nvmlDeviceGetCount failed: ") + api->error_string(rc);
    return;
  }
  device_count_ = count;
  if (count == 0) reason_ = "NVML sees no GPU";
}

NvmlLibrary::~NvmlLibrary() {
  if (initialized_) api_->shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

const NvmlLibrary& NvmlLibrary::shared() {
  static const NvmlLibrary* const instance = new NvmlLibrary();  // never destroyed: used at exit
  return *instance;
}

std::optional<GpuSample> NvmlLibrary::sample(unsigned index) const {
  if (index >= device_count_) return std::nullopt;
  nvmlDevice_t dev = nullptr;
  if (api_->handle_by_index(index, &dev) != kNvmlSuccess) return std::nullopt;
  GpuSample s;
  s.index = index;
  // One call, then one read of its output: passing `v` by value beside the call that writes it
  // left the order to the compiler, and GCC copied it first, shifting every reading by one field
  // (the H200 check saw "temperature 1980", the SM clock).
  auto read = [&dev](nvmlReturn_t (*fn)(nvmlDevice_t, int, unsigned*), int which) -> std::optional<unsigned> {
    unsigned value = 0;
    if (fn(dev, which, &value) != kNvmlSuccess) return std::nullopt;
    return value;
  };
  s.sm_clock_mhz = read(api_->clock_info, kClockSm);
  s.mem_clock_mhz = read(api_->clock_info, kClockMem);
  s.max_sm_clock_mhz = read(api_->max_clock_info, kClockSm);
  s.temperature_c = read(api_->temperature, kTemperatureGpu);
  unsigned v = 0;
  if (api_->power_usage(dev, &v) == kNvmlSuccess) s.power_w = v / 1000.0;
  unsigned long long reasons = 0;
  if (api_->event_reasons(dev, &reasons) == kNvmlSuccess) s.clocks_event_reasons = reasons;
  return s;
}

std::optional<std::uint64_t> NvmlLibrary::total_energy_mj(unsigned index) const {
  if (index >= device_count_ || api_->total_energy == nullptr) return std::nullopt;
  nvmlDevice_t dev = nullptr;
  if (api_->handle_by_index(index, &dev) != kNvmlSuccess) return std::nullopt;
  unsigned long long mj = 0;
  if (api_->total_energy(dev, &mj) != kNvmlSuccess) return std::nullopt;
  return static_cast<std::uint64_t>(mj);
}

GpuSampler::GpuSampler(const NvmlLibrary& nvml, std::vector<unsigned> devices)
    : nvml_(nvml), devices_(std::move(devices)) {
  if (devices_.empty())
    for (unsigned i = 0; i < nvml_.device_count(); ++i) devices_.push_back(i);
}

void GpuSampler::sample() {
  for (unsigned i : devices_)
    if (auto s = nvml_.sample(i)) add(*s);
}

void GpuSampler::add(const GpuSample& s) {
  auto it = std::find_if(loads_.begin(), loads_.end(), [&](const GpuDeviceLoad& d) { return d.index == s.index; });
  if (it == loads_.end()) {
    loads_.push_back(GpuDeviceLoad{});
    it = std::prev(loads_.end());
    it->index = s.index;
  }
  ++it->samples;
  keep_min(it->min_sm_clock_mhz, s.sm_clock_mhz);
  keep_max(it->max_sm_clock_mhz, s.max_sm_clock_mhz);
  keep_min(it->min_mem_clock_mhz, s.mem_clock_mhz);
  keep_max(it->max_temperature_c, s.temperature_c);
  keep_max(it->max_power_w, s.power_w);
  it->clocks_event_reasons |= s.clocks_event_reasons.value_or(0);
}

GpuLoad GpuSampler::result() const {
  GpuLoad g;
  g.devices = loads_;
  g.available = !loads_.empty();
  if (!g.available) {
    g.reason = nvml_.available() ? "no GPU sample taken" : nvml_.reason();
    return g;
  }
  for (const auto& d : loads_) {
    if (!d.throttled()) continue;
    g.throttled = true;
    if (!g.reason.empty()) g.reason += "; ";
    g.reason += "GPU " + std::to_string(d.index) + " slowed by ";
    const auto names = decode_clocks_event_reasons(d.clocks_event_reasons & nvml_reason::kThrottleMask);
    for (std::size_t i = 0; i < names.size(); ++i) g.reason += (i ? "+" : "") + names[i];
    if (d.min_sm_clock_mhz && d.max_sm_clock_mhz)
      g.reason += " (SM clock down to " + std::to_string(*d.min_sm_clock_mhz) + " of " +
                  std::to_string(*d.max_sm_clock_mhz) + " MHz)";
  }
  return g;
}

void to_json(nlohmann::json& j, const GpuDeviceLoad& d) {
  j = {{"index", d.index},
       {"samples", d.samples},
       {"min_sm_clock_mhz", or_null(d.min_sm_clock_mhz)},
       {"max_sm_clock_mhz", or_null(d.max_sm_clock_mhz)},
       {"min_mem_clock_mhz", or_null(d.min_mem_clock_mhz)},
       {"max_temperature_c", or_null(d.max_temperature_c)},
       {"max_power_w", or_null(d.max_power_w)},
       {"clocks_event_reasons_mask", d.clocks_event_reasons},
       {"clocks_event_reasons", decode_clocks_event_reasons(d.clocks_event_reasons)},
       {"throttled", d.throttled()}};
}

void to_json(nlohmann::json& j, const GpuLoad& g) {
  j = {{"available", g.available}, {"reason", g.reason}, {"throttled", g.throttled}, {"devices", g.devices}};
}

namespace {
std::optional<unsigned> optional_unsigned(const nlohmann::json& j, const char* key) {
  const auto v = optional_integer(j, key);
  if (!v || *v < 0 || *v > std::numeric_limits<unsigned>::max()) return std::nullopt;
  return static_cast<unsigned>(*v);
}
}  // namespace

void from_json(const nlohmann::json& j, GpuDeviceLoad& d) {
  d = GpuDeviceLoad{};
  d.index = optional_unsigned(j, "index").value_or(0);
  d.samples =
      static_cast<int>(std::clamp<std::int64_t>(field_integer(j, "samples"), 0, std::numeric_limits<int>::max()));
  d.min_sm_clock_mhz = optional_unsigned(j, "min_sm_clock_mhz");
  d.max_sm_clock_mhz = optional_unsigned(j, "max_sm_clock_mhz");
  d.min_mem_clock_mhz = optional_unsigned(j, "min_mem_clock_mhz");
  d.max_temperature_c = optional_unsigned(j, "max_temperature_c");
  d.max_power_w = optional_number(j, "max_power_w");
  if (const auto it = j.find("clocks_event_reasons_mask"); it != j.end() && it->is_number_unsigned())
    d.clocks_event_reasons = it->get<std::uint64_t>();
}

void from_json(const nlohmann::json& j, GpuLoad& g) {
  g = GpuLoad{};
  g.available = field_flag(j, "available");
  g.reason = field_text(j, "reason");
  g.throttled = field_flag(j, "throttled");
  if (const auto it = j.find("devices"); it != j.end() && it->is_array())
    for (const auto& d : *it)
      if (d.is_object()) g.devices.push_back(d.get<GpuDeviceLoad>());
}

}  // namespace tb
