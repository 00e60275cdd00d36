// The memory sampler: /proc/self/statm parsing, a real 200 MB allocation seen rising and falling
// in the resident set, the bounded series and its results.json form.
#include <trainbench/measure/memory_timeline.hpp>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include <sys/mman.h>

#include <gtest/gtest.h>

namespace tb {
namespace {

using namespace std::chrono_literals;

TEST(Statm, ParsesTheResidentPages) {
  EXPECT_EQ(parse_statm_rss_bytes("12345 678 90 1 0 2 0\n", 4096), 678 * 4096);
  EXPECT_EQ(parse_statm_rss_bytes("1 2", 16384), 2 * 16384);
  EXPECT_FALSE(parse_statm_rss_bytes("", 4096));
  EXPECT_FALSE(parse_statm_rss_bytes("12345", 4096));
  EXPECT_FALSE(parse_statm_rss_bytes("12345 x", 4096));
  EXPECT_FALSE(parse_statm_rss_bytes("1 99999999999999999999999", 4096));
}

TEST(MemorySampler, SeesA200MegabyteAllocationRiseAndFall) {
  if (read_statm_rss_bytes() < 0) GTEST_SKIP() << "no /proc/self/statm (not Linux)";
  constexpr std::size_t kBytes = 200u << 20;
  MemorySampler sampler(read_statm_rss_bytes, "rss", 1ms);
  sampler.start();
  std::this_thread::sleep_for(20ms);
  {
    // mmap/munmap, not new/delete: the pages go back to the kernel at munmap whatever the
    // allocator (AddressSanitizer's keeps freed blocks in quarantine, so RSS would not fall).
    void* mapped = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mapped, MAP_FAILED);
    char* block = static_cast<char*>(mapped);
    for (std::size_t i = 0; i < kBytes; i += 4096) block[i] = static_cast<char>(i);  // resident now
    std::this_thread::sleep_for(20ms);
    ::munmap(mapped, kBytes);
  }
  std::this_thread::sleep_for(20ms);
  const MemoryTimeline t = sampler.stop();

  ASSERT_GE(t.points.size(), 3u);
  EXPECT_EQ(t.source, "rss");
  const std::int64_t before = t.points.front().bytes, after = t.points.back().bytes;
  EXPECT_GE(t.peak_bytes - before, static_cast<std::int64_t>(kBytes * 9 / 10)) << "rise not seen";
  EXPECT_GE(t.peak_bytes - after, static_cast<std::int64_t>(kBytes * 9 / 10)) << "fall not seen";
  EXPECT_GT(t.peak_ts_ns, t.points.front().ts_ns);
  EXPECT_LT(t.peak_ts_ns, t.points.back().ts_ns);
  for (std::size_t i = 1; i < t.points.size(); ++i) EXPECT_GE(t.points[i].ts_ns, t.points[i - 1].ts_ns);
}

TEST(MemorySampler, TheSeriesStaysBoundedAndKeepsThePeak) {
  std::atomic<std::int64_t> value{0};
  MemorySampler sampler([&] { return value.fetch_add(1) == 7 ? 1'000'000 : 10; }, "test", 100us, 8);
  sampler.start();
  std::this_thread::sleep_for(30ms);
  const MemoryTimeline t = sampler.stop();
  EXPECT_GT(t.readings, 8);
  EXPECT_LE(t.points.size(), 8u);
  EXPECT_EQ(t.peak_bytes, 1'000'000);  // reading 7, whether or not its point was kept
  EXPECT_GE(t.interval_ms, 0.1 * 2);   // the stride doubled at least once
  EXPECT_THROW(
      {
        MemorySampler twice([] { return 1; }, "x");
        twice.start();
        twice.start();
      },
      std::logic_error);
}

TEST(MemorySampler, UnreadableFiguresAreSkippedAndJsonIsCompact) {
  MemorySampler none([] { return std::int64_t{-1}; }, "rss");
  none.start();
  EXPECT_TRUE(none.stop().empty());

  MemoryTimeline t;
  t.source = "cuda_allocated";
  t.interval_ms = 2;
  t.start_ns = 1'000'000;
  t.points = {{1'000'000, 100}, {3'000'000, 300}, {5'500'000, 200}};
  t.peak_bytes = 300;
  t.peak_ts_ns = 3'000'000;
  t.readings = 3;
  const auto j = memory_timeline_json(t);
  EXPECT_EQ(j.at("source"), "cuda_allocated");
  EXPECT_EQ(j.at("t_ms"), nlohmann::json::array({0.0, 2.0, 4.5}));
  EXPECT_EQ(j.at("bytes"), nlohmann::json::array({100, 300, 200}));
  EXPECT_EQ(j.at("peak_bytes"), 300);
  EXPECT_EQ(j.at("peak_t_ms"), 2.0);
}

}  // namespace
}  // namespace tb
