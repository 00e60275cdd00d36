// Energy per step: RAPL on a fixture powercap tree (package zones only, wrap-around), the
// not-available reasons, NVML absent, and the meter's per-segment arithmetic.
#include <trainbench/measure/energy_meter.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include <trainbench/measure/gpu_monitor.hpp>
#include "tests/helpers/scratch_dir.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text << '\n';
}

// A two-package machine with a core sub-zone (already in its package) and a psys zone (the whole
// platform: it would count the packages twice).
fs::path fixture_tree(const std::string& name) {
  const auto root = test::scratch_dir(name);
  write(root / "intel-rapl:0/name", "package-0");
  write(root / "intel-rapl:0/energy_uj", "1000000");
  write(root / "intel-rapl:0/max_energy_range_uj", "262143328850");
  write(root / "intel-rapl:0:0/name", "core");
  write(root / "intel-rapl:0:0/energy_uj", "5");
  write(root / "intel-rapl:1/name", "package-1");
  write(root / "intel-rapl:1/energy_uj", "262143000000");
  write(root / "intel-rapl:1/max_energy_range_uj", "262143328850");
  write(root / "intel-rapl:2/name", "psys");
  write(root / "intel-rapl:2/energy_uj", "0");
  write(root / "intel-mmio:0/name", "mmio");  // not a RAPL zone of the MSR interface
  return root;
}

TEST(Rapl, DeltaUnwindsOneWrap) {
  EXPECT_EQ(rapl_delta_uj(100, 350, 1000), 250u);
  EXPECT_EQ(rapl_delta_uj(900, 100, 1000), 200u);  // 900 -> 1000, then 0 -> 100
  EXPECT_EQ(rapl_delta_uj(900, 100, 0), 0u);       // unknown range: no made-up figure
}

TEST(Rapl, SumsThePackagesAcrossAWrap) {
  const auto root = fixture_tree("rapl_fixture");
  auto choice = open_rapl_counter(root);
  ASSERT_TRUE(choice.counter) << choice.reason;
  EXPECT_EQ(choice.counter->source(), "rapl");
  EXPECT_EQ(choice.counter->read_joules(), 0.0);
  write(root / "intel-rapl:0/energy_uj", "3000000");      // +2 J
  write(root / "intel-rapl:1/energy_uj", "671150");       // wrapped: +328850 + 671150 uj = +1 J
  write(root / "intel-rapl:0:0/energy_uj", "999999999");  // a sub-zone: never added
  write(root / "intel-rapl:2/energy_uj", "999999999");    // psys: never added
  EXPECT_DOUBLE_EQ(*choice.counter->read_joules(), 3.0);
  write(root / "intel-rapl:0/energy_uj", "4000000");  // +1 J
  EXPECT_DOUBLE_EQ(*choice.counter->read_joules(), 4.0);
}

TEST(Rapl, NotAvailableSaysWhy) {
  const auto root = test::scratch_dir("rapl_none");
  auto none = open_rapl_counter(root / "powercap");
  EXPECT_FALSE(none.counter);
  EXPECT_NE(none.reason.find("no " + (root / "powercap" / "intel-rapl:*").string()), std::string::npos) << none.reason;
  EXPECT_NE(none.reason.find("virtual machine"), std::string::npos);

  write(root / "bad/intel-rapl:0/name", "package-0");
  write(root / "bad/intel-rapl:0/energy_uj", "not a number");
  EXPECT_NE(open_rapl_counter(root / "bad").reason.find("energy_uj: not a counter value"), std::string::npos);

  const auto meter = EnergyMeter(std::move(none)).result();
  EXPECT_FALSE(meter.available);
  const nlohmann::json j = meter;
  EXPECT_EQ(j.at("available"), false);
  EXPECT_NE(j.at("reason").get<std::string>().find("intel-rapl"), std::string::npos);
}

TEST(Rapl, PermissionDeniedSaysSo) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  const auto root = fixture_tree("rapl_denied");
  fs::permissions(root / "intel-rapl:0/energy_uj", fs::perms::none);
  const auto choice = open_rapl_counter(root);
  EXPECT_FALSE(choice.counter);
  EXPECT_NE(choice.reason.find("permission denied reading " + (root / "intel-rapl:0/energy_uj").string()),
            std::string::npos)
      << choice.reason;
}

TEST(NvmlEnergy, NoDriverSaysWhy) {
  const NvmlLibrary missing("libnvidia-ml-not-here.so.1");
  const auto choice = open_nvml_counter(missing, 0);
  EXPECT_FALSE(choice.counter);
  EXPECT_NE(choice.reason.find("NVML not loaded"), std::string::npos) << choice.reason;
  EXPECT_FALSE(missing.total_energy_mj(0));
}

TEST(EnergyMeter, PerStepAndPerJouleOverTheSegmentsOnly) {
  const auto root = fixture_tree("rapl_meter");
  EnergyMeter meter(open_rapl_counter(root));
  meter.begin();
  write(root / "intel-rapl:0/energy_uj", "11000000");  // +10 J over 5 steps of 64 samples
  meter.end(5, 5 * 64);
  write(root / "intel-rapl:0/energy_uj", "51000000");  // +40 J between segments: not counted
  meter.begin();
  write(root / "intel-rapl:0/energy_uj", "61000000");  // +10 J over 5 more steps
  meter.end(5, 5 * 64);
  meter.begin();
  write(root / "intel-rapl:0/energy_uj", "99000000");  // an abandoned segment
  meter.cancel();
  const EnergyResult r = meter.result();
  ASSERT_TRUE(r.available) << r.reason;
  EXPECT_DOUBLE_EQ(r.joules, 20.0);
  EXPECT_DOUBLE_EQ(r.joules_per_step, 2.0);
  EXPECT_DOUBLE_EQ(r.samples_per_joule, 32.0);
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("source"), "rapl");
  EXPECT_EQ(j.at("joules_per_step"), 2.0);
  EXPECT_EQ(j.at("samples_per_joule"), 32.0);
}

TEST(EnergyMeter, ACounterThatDidNotMoveIsNotAMeasurement) {
  const auto root = fixture_tree("rapl_still");
  EnergyMeter meter(open_rapl_counter(root));
  meter.begin();
  meter.end(3, 3);
  const auto r = meter.result();
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("did not advance"), std::string::npos) << r.reason;
  EXPECT_NE(EnergyMeter(open_rapl_counter(root)).result().reason.find("no measured step"), std::string::npos);
}

}  // namespace
}  // namespace tb
