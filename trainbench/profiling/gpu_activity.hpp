// Plain records of GPU work and CUDA API calls, decoded from CUPTI (cupti_records.hpp) and
// consumed by summaries and trace writers. No CUDA headers needed. All timestamps are
// nanoseconds; after HostClockOffset is applied they are on the steady_clock host timeline.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tb::profiling {

enum class GpuActivityKind { kernel, memcpy, memset, sync, overhead };
const char* to_string(GpuActivityKind k);

// Direction of a copy, collapsed from CUpti_ActivityMemcpyKind.
enum class CopyKind { none, h2d, d2h, d2d, h2h, p2p, other };
const char* to_string(CopyKind k);

struct GpuActivity {
  GpuActivityKind kind = GpuActivityKind::kernel;
  std::string name;  // kernel name (demangled when possible), "Memcpy HtoD", "Memset", ...
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t device = 0;
  std::uint32_t context = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation_id = 0;          // matches the launching API call
  std::uint32_t runtime_correlation_id = 0;  // memcpy only: the runtime call (correlation_id is the driver's)
  std::uint64_t bytes = 0;                   // memcpy / memset
  CopyKind copy_kind = CopyKind::none;
};

// Work the device itself does (kernels, copies, memsets), as opposed to syncs and overhead.
inline bool is_device_work(const GpuActivity& a) {
  return a.kind == GpuActivityKind::kernel || a.kind == GpuActivityKind::memcpy || a.kind == GpuActivityKind::memset;
}

struct RuntimeCall {
  std::string name;  // "cudaLaunchKernel", or "cbid 211" when names are unavailable
  std::uint32_t cbid = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t process_id = 0;
  std::uint32_t thread_id = 0;  // OS thread id
  std::uint32_t correlation_id = 0;
  bool is_driver = false;
};

struct DecodedRecords {
  std::vector<GpuActivity> activities;
  std::vector<RuntimeCall> calls;
  std::uint64_t overhead_ns = 0;      // CUPTI's own overhead records, summed
  std::uint64_t dropped_records = 0;  // cuptiActivityGetNumDroppedRecords + undecodable ones
  std::uint64_t unknown_records = 0;  // kinds trainbench does not decode (skipped)
};

// Moves every timestamp by offset_ns (CUPTI clock -> steady_clock host timeline).
void shift_timestamps(DecodedRecords& records, std::int64_t offset_ns);

// Demangles an Itanium C++ name ("_Z...") or returns it unchanged.
std::string demangle(const char* name);

}  // namespace tb::profiling
