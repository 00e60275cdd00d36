// The resident-set probe sees a 200 MiB allocation and forgets it after reset().
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <trainbench/capacity/memory_probe.hpp>

namespace tb::capacity {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

TEST(MemoryProbe, ParsesProcStatus) {
  const std::string status = "Name:\ttest\nVmHWM:\t  204800 kB\nVmRSS:\t    1932 kB\n";
  EXPECT_EQ(parse_proc_status_bytes(status, "VmHWM"), 204800LL * 1024);
  EXPECT_EQ(parse_proc_status_bytes(status, "VmRSS"), 1932LL * 1024);
  EXPECT_EQ(parse_proc_status_bytes(status, "VmSwap"), -1);
}

void expect_peak_tracks_allocation(PeakRssProbe& probe) {
  probe.reset();
  const std::int64_t before = probe.current_rss_bytes();
  EXPECT_LE(probe.peak_rss_bytes() - before, 16 * kMiB) << "peak not reset near current";

  {
    const std::size_t size = 200 * kMiB;
    // mmap'd (so munmap really returns it, whatever the allocator or sanitizer) and written
    // page by page so the pages are resident.
    void* block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(block, MAP_FAILED);
    volatile char* bytes = static_cast<char*>(block);
    for (std::size_t i = 0; i < size; i += 4096) bytes[i] = static_cast<char>(i >> 12);
    EXPECT_GE(probe.current_rss_bytes() - before, 190 * kMiB);
    EXPECT_GE(probe.peak_rss_bytes() - before, 190 * kMiB);
    munmap(block, size);
  }
  // Freed: the current size drops, the peak remembers.
  EXPECT_GE(probe.peak_rss_bytes() - probe.current_rss_bytes(), 150 * kMiB);

  probe.reset();
  EXPECT_LE(probe.peak_rss_bytes() - probe.current_rss_bytes(), 16 * kMiB);
  EXPECT_LT(probe.peak_rss_bytes() - before, 32 * kMiB);
}

TEST(MemoryProbe, KernelPeakRisesWithTouchedMemoryAndResets) {
  PeakRssProbe probe;
  if (probe.current_rss_bytes() < 0) GTEST_SKIP() << "no /proc/self/status on this system";
  expect_peak_tracks_allocation(probe);
}

TEST(MemoryProbe, SampledPeakRisesWithTouchedMemoryAndResets) {
  PeakRssProbe probe(PeakRssProbe::Mode::sampling);
  if (probe.current_rss_bytes() < 0) GTEST_SKIP() << "no /proc/self/status on this system";
  expect_peak_tracks_allocation(probe);
  EXPECT_FALSE(probe.uses_kernel_peak());
}

}  // namespace
}  // namespace tb::capacity
