// CPU allocation failures in our words (trainbench/runner/cpu_oom.hpp): LibTorch's allocator messages
// become "CPU out of memory" with the size when there is one; other errors are left alone.
#include <trainbench/runner/cpu_oom.hpp>

#include <gtest/gtest.h>

namespace {

TEST(CpuOom, AllocatorMessagesBecomeOneCleanLine) {
  struct Case {
    std::string what;
    std::optional<std::string> message;
  };
  const std::vector<Case> cases = {
      {"[enforce fail at alloc_cpu.cpp:127] data. DefaultCPUAllocator: not enough memory: you tried "
       "to allocate 4503599627370496 bytes.",
       "CPU out of memory: could not allocate 4503599627370496 bytes (4.00 PiB)"},
      {"DefaultCPUAllocator: can't allocate memory: you tried to allocate 1073741824 bytes. Error code 12 "
       "(Cannot allocate memory)",
       "CPU out of memory: could not allocate 1073741824 bytes (1.00 GiB)"},
      {"[enforce fail at alloc_cpu.cpp:90] DefaultCPUAllocator: can't allocate memory",
       "CPU out of memory: an allocation failed"},
      {"DefaultCPUAllocator: not enough memory: you tried to allocate 18446744073709551615 bytes.",
       "CPU out of memory: could not allocate 18446744073709551615 bytes"},
      {"mat1 and mat2 shapes cannot be multiplied (16x32 and 64x10)", std::nullopt},
      {"you tried to allocate 12 bytes", std::nullopt},  // not the CPU allocator
  };
  for (const auto& c : cases) EXPECT_EQ(tb::cpu_oom_message(c.what), c.message) << c.what;
}

}  // namespace
