#include <trainbench/profiling/gpu_activity.hpp>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace tb::profiling {

const char* to_string(GpuActivityKind k) {
  switch (k) {
    case GpuActivityKind::kernel: return "kernel";
    case GpuActivityKind::memcpy: return "memcpy";
    case GpuActivityKind::memset: return "memset";
    case GpuActivityKind::sync: return "sync";
    case GpuActivityKind::overhead: return "overhead";
  }
  return "unknown";
}

const char* to_string(CopyKind k) {
  switch (k) {
    case CopyKind::none: return "none";
    case CopyKind::h2d: return "h2d";
    case CopyKind::d2h: return "d2h";
    case CopyKind::d2d: return "d2d";
    case CopyKind::h2h: return "h2h";
    case CopyKind::p2p: return "p2p";
    case CopyKind::other: return "other";
  }
  return "other";
}

void shift_timestamps(DecodedRecords& records, std::int64_t offset_ns) {
  for (auto& a : records.activities) {
    a.start_ns += offset_ns;
    a.end_ns += offset_ns;
  }
  for (auto& c : records.calls) {
    c.start_ns += offset_ns;
    c.end_ns += offset_ns;
  }
}

std::string demangle(const char* name) {
  if (name == nullptr) return "";
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

}  // namespace tb::profiling
