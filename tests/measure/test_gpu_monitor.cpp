// NVML monitor: reason decoding and the sampler's aggregation on fixture readings everywhere;
// real readings only where a driver and a GPU exist (skipped with the reason elsewhere).
#include <gtest/gtest.h>

#include <trainbench/measure/gpu_monitor.hpp>

namespace tb {
namespace {

using Names = std::vector<std::string>;

TEST(ClocksEventReasons, DecodesFixtureMasks) {
  EXPECT_EQ(decode_clocks_event_reasons(0), Names{});
  EXPECT_EQ(decode_clocks_event_reasons(0x1), Names{"gpu_idle"});
  EXPECT_EQ(decode_clocks_event_reasons(0x24), (Names{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_EQ(decode_clocks_event_reasons(0x1FF),
            (Names{"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
                   "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "display_clock_setting"}));
  EXPECT_EQ(decode_clocks_event_reasons(0x1000 | 0x40), (Names{"hw_thermal_slowdown", "unknown_0x1000"}));
}

TEST(ClocksEventReasons, ThrottlingIsHeatOrHardwareSlowdown) {
  using namespace nvml_reason;
  for (auto bit : {kHwSlowdown, kSwThermalSlowdown, kHwThermalSlowdown, kHwPowerBrakeSlowdown})
    EXPECT_TRUE(is_throttling(bit)) << bit;
  for (auto bit :
       {std::uint64_t{0}, kGpuIdle, kApplicationsClocksSetting, kSwPowerCap, kSyncBoost, kDisplayClockSetting})
    EXPECT_FALSE(is_throttling(bit)) << bit;
}

TEST(NvmlLibrary, MissingLibraryIsUnavailableWithReason) {
  const NvmlLibrary nvml("libtrainbench-no-such-nvml.so.1");
  EXPECT_FALSE(nvml.available());
  EXPECT_EQ(nvml.device_count(), 0u);
  EXPECT_NE(nvml.reason().find("NVML not loaded"), std::string::npos) << nvml.reason();
  EXPECT_FALSE(nvml.sample(0).has_value());
}

GpuSample reading(unsigned sm, unsigned temp, double watts, std::uint64_t reasons) {
  GpuSample s;
  s.index = 0;
  s.sm_clock_mhz = sm;
  s.mem_clock_mhz = 3201;
  s.max_sm_clock_mhz = 1980;
  s.temperature_c = temp;
  s.power_w = watts;
  s.clocks_event_reasons = reasons;
  return s;
}

TEST(GpuSampler, KeepsExtremesAndOrOfReasons) {
  const NvmlLibrary none("libtrainbench-no-such-nvml.so.1");
  GpuSampler sampler(none);
  sampler.add(reading(1980, 61, 540.5, nvml_reason::kSwPowerCap));
  sampler.add(reading(1410, 88, 690.0, nvml_reason::kSwThermalSlowdown));
  sampler.add(reading(1755, 79, 600.0, nvml_reason::kGpuIdle));
  const auto g = sampler.result();
  ASSERT_TRUE(g.available);
  ASSERT_EQ(g.devices.size(), 1u);
  const auto& d = g.devices[0];
  EXPECT_EQ(d.samples, 3);
  EXPECT_EQ(d.min_sm_clock_mhz, 1410u);
  EXPECT_EQ(d.max_sm_clock_mhz, 1980u);
  EXPECT_EQ(d.max_temperature_c, 88u);
  EXPECT_DOUBLE_EQ(d.max_power_w.value(), 690.0);
  EXPECT_EQ(d.clocks_event_reasons, nvml_reason::kSwPowerCap | nvml_reason::kSwThermalSlowdown | nvml_reason::kGpuIdle);
  EXPECT_TRUE(g.throttled);
  EXPECT_EQ(g.reason, "GPU 0 slowed by sw_thermal_slowdown (SM clock down to 1410 of 1980 MHz)");
}

TEST(GpuSampler, PowerCapAloneIsNotThrottled) {
  const NvmlLibrary none("libtrainbench-no-such-nvml.so.1");
  GpuSampler sampler(none);
  sampler.add(reading(1755, 70, 700.0, nvml_reason::kSwPowerCap));
  sampler.add(reading(1740, 71, 700.0, nvml_reason::kSwPowerCap | nvml_reason::kGpuIdle));
  const auto g = sampler.result();
  EXPECT_TRUE(g.available);
  EXPECT_FALSE(g.throttled);
  EXPECT_EQ(g.reason, "");
  const nlohmann::json j = g;
  EXPECT_EQ(j.at("devices").at(0).at("clocks_event_reasons"), (Names{"gpu_idle", "sw_power_cap"}));
}

TEST(GpuSampler, WithoutLibraryReportsWhy) {
  const NvmlLibrary none("libtrainbench-no-such-nvml.so.1");
  GpuSampler sampler(none);
  sampler.sample();  // no device: nothing happens
  const auto g = sampler.result();
  EXPECT_FALSE(g.available);
  EXPECT_FALSE(g.throttled);
  EXPECT_EQ(g.reason, none.reason());
}

TEST(GpuLoadJson, FieldNames) {
  const NvmlLibrary none("libtrainbench-no-such-nvml.so.1");
  GpuSampler sampler(none);
  GpuSample partial;  // a device that refuses everything but the clock
  partial.index = 1;
  partial.sm_clock_mhz = 1200;
  sampler.add(partial);
  const nlohmann::json j = sampler.result();
  for (const char* key : {"available", "reason", "throttled", "devices"}) EXPECT_TRUE(j.contains(key)) << key;
  const auto& d = j.at("devices").at(0);
  for (const char* key :
       {"index", "samples", "min_sm_clock_mhz", "max_sm_clock_mhz", "min_mem_clock_mhz", "max_temperature_c",
        "max_power_w", "clocks_event_reasons_mask", "clocks_event_reasons", "throttled"})
    EXPECT_TRUE(d.contains(key)) << key;
  EXPECT_EQ(d.at("index"), 1);
  EXPECT_EQ(d.at("min_sm_clock_mhz"), 1200);
  EXPECT_TRUE(d.at("max_temperature_c").is_null());
  EXPECT_TRUE(d.at("max_power_w").is_null());
}

// Real NVML: only with a driver and a GPU.
TEST(NvmlLibrary, RealDeviceReadings) {
  const auto& nvml = NvmlLibrary::shared();
  if (!nvml.available()) GTEST_SKIP() << "no NVML GPU here: " << nvml.reason();
  const auto s = nvml.sample(0);
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE(s->sm_clock_mhz.has_value());
  ASSERT_TRUE(s->max_sm_clock_mhz.has_value());
  EXPECT_GT(*s->max_sm_clock_mhz, 0u);
  EXPECT_LE(*s->sm_clock_mhz, *s->max_sm_clock_mhz + 50);  // boost may read slightly past max
  ASSERT_TRUE(s->temperature_c.has_value());
  EXPECT_GT(*s->temperature_c, 0u);
  EXPECT_LT(*s->temperature_c, 120u);
  EXPECT_TRUE(s->clocks_event_reasons.has_value());
  EXPECT_FALSE(nvml.sample(nvml.device_count()).has_value());

  GpuSampler sampler;
  sampler.sample();
  sampler.sample();
  const auto g = sampler.result();
  EXPECT_TRUE(g.available);
  EXPECT_EQ(g.devices.size(), nvml.device_count());
  EXPECT_EQ(g.devices.at(0).samples, 2);
}

}  // namespace
}  // namespace tb
