// CPU allocation failures read as out of memory, like CUDA's. LibTorch's CPU allocator reports
// one as a c10::Error ("[enforce fail at alloc_cpu.cpp:127] data. DefaultCPUAllocator: not
// enough memory: you tried to allocate 4503599627370496 bytes."), and operator new as
// std::bad_alloc; a scenario that hits either is `oom` with a message in our words.
#pragma once
#include <optional>
#include <string>

namespace tb {

// "CPU out of memory: could not allocate 4503599627370496 bytes (4.00 PiB)" when `what` is a CPU
// allocator failure (the size when the message has one); nullopt for any other error.
std::optional<std::string> cpu_oom_message(const std::string& what);

// The message for std::bad_alloc, which carries no size.
std::string cpu_bad_alloc_message();

}  // namespace tb
