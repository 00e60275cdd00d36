// Host description parsers on fixture text and a fixture sysfs cache tree, the JSON google
// benchmark's context uses, and a smoke check of the real reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <trainbench/measure/system_info.hpp>

namespace tb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCpuinfo =
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "model name\t: AMD EPYC 9454 48-Core Processor\n"
    "cpu MHz\t\t: 2596.148\n"
    "cache size\t: 1024 KB\n"
    "\n"
    "processor\t: 1\n"
    "cpu MHz\t\t: 3100.000\n";

TEST(SystemInfoParse, CpuinfoMhzIsTheFirstCpu) {
  const auto mhz = parse_cpuinfo_mhz(kCpuinfo);
  ASSERT_TRUE(mhz.has_value());
  EXPECT_DOUBLE_EQ(*mhz, 2596.148);
  EXPECT_FALSE(parse_cpuinfo_mhz("processor : 0\nBogoMIPS : 50.00\n").has_value());  // ARM
  EXPECT_FALSE(parse_cpuinfo_mhz("cpu MHz : ?\n").has_value());
}

TEST(SystemInfoParse, CpufreqIsKilohertz) {
  EXPECT_DOUBLE_EQ(parse_cpufreq_khz("3800000\n").value(), 3800.0);
  EXPECT_FALSE(parse_cpufreq_khz("").has_value());
  EXPECT_FALSE(parse_cpufreq_khz("0\n").has_value());
}

TEST(SystemInfoParse, CacheSizes) {
  EXPECT_EQ(parse_cache_size("32K\n").value(), 32 * 1024);
  EXPECT_EQ(parse_cache_size("32768K").value(), 32 * 1024 * 1024);
  EXPECT_EQ(parse_cache_size("2M").value(), 2 * 1024 * 1024);
  EXPECT_EQ(parse_cache_size("512").value(), 512);
  EXPECT_FALSE(parse_cache_size("K").has_value());
  EXPECT_FALSE(parse_cache_size("12Q").has_value());
}

TEST(SystemInfoParse, CpuListsAndMasks) {
  EXPECT_EQ(parse_cpu_list_count("0\n").value(), 1);
  EXPECT_EQ(parse_cpu_list_count("0-1").value(), 2);
  EXPECT_EQ(parse_cpu_list_count("0-3,8,10-11\n").value(), 7);
  EXPECT_FALSE(parse_cpu_list_count("").has_value());
  EXPECT_FALSE(parse_cpu_list_count("3-1").has_value());
  EXPECT_EQ(parse_cpu_mask_count("3\n").value(), 2);
  EXPECT_EQ(parse_cpu_mask_count("00000000,0000000f").value(), 4);
  EXPECT_EQ(parse_cpu_mask_count("ff,00000001").value(), 9);
  EXPECT_FALSE(parse_cpu_mask_count("xyz").has_value());
}

TEST(SystemInfoParse, Governors) {
  EXPECT_FALSE(governor_scales("performance\n"));
  EXPECT_TRUE(governor_scales("powersave\n"));
  EXPECT_TRUE(governor_scales("schedutil"));
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(SystemInfoCaches, ReadsAFixtureSysfsTree) {
  const auto dir = fs::path(TB_BINARY_DIR) / "test_scratch" / "system_info_cache";
  fs::remove_all(dir);
  const auto index = [&](int i) { return dir / ("index" + std::to_string(i)); };
  write(index(0) / "level", "1\n");
  write(index(0) / "type", "Data\n");
  write(index(0) / "size", "32K\n");
  write(index(0) / "shared_cpu_list", "0-1\n");
  write(index(1) / "level", "2\n");
  write(index(1) / "type", "Unified\n");
  write(index(1) / "size", "1024K\n");
  write(index(1) / "shared_cpu_map", "00000000,000000ff\n");  // no list: the mask is counted
  write(index(2) / "level", "3\n");                           // no size: skipped
  write(index(2) / "type", "Unified\n");
  write(index(3) / "level", "3\n");
  write(index(3) / "type", "Unified\n");
  write(index(3) / "size", "32768K\n");
  write(dir / "index5" / "level", "4\n");  // after a gap: not read (index4 is missing)

  const auto caches = read_caches(dir);
  ASSERT_EQ(caches.size(), 3u);
  EXPECT_EQ(caches[0].type, "Data");
  EXPECT_EQ(caches[0].level, 1);
  EXPECT_EQ(caches[0].size, 32 * 1024);
  EXPECT_EQ(caches[0].num_sharing, 2);
  EXPECT_EQ(caches[1].num_sharing, 8);
  EXPECT_EQ(caches[2].size, 32 * 1024 * 1024);
  EXPECT_EQ(caches[2].num_sharing, 0);  // unknown
  EXPECT_TRUE(read_caches(dir / "missing").empty());
}

TEST(SystemInfoJson, GoogleBenchmarkFieldNames) {
  SystemInfo info;
  info.num_cpus = 2;
  info.mhz_per_cpu = 2596.148;
  info.caches = {{"Data", 1, 32768, 1}, {"Unified", 3, 33554432, 2}};
  info.load_avg = {1.87, 0.91, 0.37};
  nlohmann::json j = info;
  EXPECT_EQ(j.at("num_cpus"), 2);
  EXPECT_EQ(j.at("caches").at(1),
            (nlohmann::json{{"type", "Unified"}, {"level", 3}, {"size", 33554432}, {"num_sharing", 2}}));
  EXPECT_EQ(j.at("load_avg").size(), 3u);
  EXPECT_FALSE(j.contains("cpu_scaling_enabled"));  // unknown is absent, as in gbench
  info.cpu_scaling_enabled = false;
  j = info;
  EXPECT_EQ(j.at("cpu_scaling_enabled"), false);

  const auto back = j.get<SystemInfo>();
  EXPECT_EQ(nlohmann::json(back), j);
  const auto empty = nlohmann::json::object().get<SystemInfo>();
  EXPECT_EQ(empty.num_cpus, 0);
  EXPECT_TRUE(empty.caches.empty());
  EXPECT_FALSE(empty.cpu_scaling_enabled.has_value());
}

TEST(SystemInfoSmoke, RealSystem) {
  const auto info = read_system_info();
  EXPECT_GE(info.num_cpus, 1);
  EXPECT_GE(info.mhz_per_cpu, 0.0);
  EXPECT_LE(info.load_avg.size(), 3u);
  for (double a : info.load_avg) EXPECT_GE(a, 0.0);
  for (const auto& c : info.caches) {
    EXPECT_GE(c.level, 1);
    EXPECT_GT(c.size, 0);
    EXPECT_FALSE(c.type.empty());
  }
#ifdef __linux__
  EXPECT_EQ(info.load_avg.size(), 3u);
#endif
}

}  // namespace
}  // namespace tb
