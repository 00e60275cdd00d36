// The resident-set probe sees a 200 MiB allocation and forgets it after reset().
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "harness/capacity/memory_probe.hpp"

namespace tb::capacity {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

TEST(MemoryProbe, ParsesProcStatus) {
  const std::string status = "Name:\ttest\nVmHWM:\t  204800 kB\nVmRSS:\t    1932 kB\n";
  EXPECT_EQ(parse_proc_status_bytes(status, "VmHWM"), 204800LL * 1024);
  EXPECT_EQ(parse_proc_status_bytes(status, "VmRSS"), 1932LL * 1024);
  EXPECT_EQ(parse_proc_status_bytes(status, "VmSwap"), -1);
}

TEST(MemoryProbe, PeakRisesWithTouchedMemoryAndResets) {
  PeakRssProbe probe;
  if (probe.current_rss_bytes() < 0) GTEST_SKIP() << "no /proc/self/status on this system";
  probe.reset();
  const std::int64_t before = probe.current_rss_bytes();
  EXPECT_LE(probe.peak_rss_bytes() - before, 16 * kMiB) << "peak not reset near current";

  {
    const std::size_t size = 200 * kMiB;
    // malloc'd and written page by page so the pages are really resident.
    std::unique_ptr<char, decltype(&std::free)> block(static_cast<char*>(std::malloc(size)), &std::free);
    ASSERT_NE(block, nullptr);
    volatile char* bytes = block.get();
    for (std::size_t i = 0; i < size; i += 4096) bytes[i] = static_cast<char>(i >> 12);
    EXPECT_GE(probe.current_rss_bytes() - before, 190 * kMiB);
    EXPECT_GE(probe.peak_rss_bytes() - before, 190 * kMiB);
  }
  // Freed: the current size drops, the peak remembers.
  EXPECT_GE(probe.peak_rss_bytes() - probe.current_rss_bytes(), 150 * kMiB);

  probe.reset();
  EXPECT_LE(probe.peak_rss_bytes() - probe.current_rss_bytes(), 16 * kMiB);
  EXPECT_LT(probe.peak_rss_bytes() - before, 32 * kMiB);
}

}  // namespace
}  // namespace tb::capacity
