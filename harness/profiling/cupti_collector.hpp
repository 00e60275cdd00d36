// CUPTI activity collection for a bounded profiling window (GPU only). Compiled into
// trainbench_torch only when libcupti is found (TRAINBENCH_HAVE_CUPTI); guard uses with it.
//
//   auto& cupti = CuptiCollector::instance();
//   cupti.start();                       // before the window's first step
//   ... window steps ...
//   DecodedRecords recs = cupti.stop();  // syncs the device, flushes, disables
//
// CUPTI allows one activity subscriber per process: never run this while the Kineto pass
// (which uses CUPTI through LibTorch) is active. Timestamps come back on the steady_clock host
// timeline, so they line up with HostRecorder spans.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>

#include "harness/profiling/gpu_activity.hpp"

namespace tb::profiling {

class CuptiCollector {
 public:
  // CUPTI's buffer callbacks are process-wide, so the collector is too.
  static CuptiCollector& instance();

  // Enables kernel, memcpy, memset, runtime, driver, synchronization and overhead records.
  // std::runtime_error with CUPTI's message when CUPTI refuses (e.g. another subscriber).
  void start();
  // Ends the window and returns every record of it (timestamps on the host timeline).
  DecodedRecords stop();
  bool running() const { return running_; }

  // Called from CUPTI's buffer-completed callback (any thread).
  void on_buffer_completed(std::uint8_t* buffer, std::size_t valid_size, std::uint64_t dropped);

 private:
  CuptiCollector() = default;

  std::mutex mutex_;
  DecodedRecords store_;
  bool running_ = false;
  bool callbacks_registered_ = false;
  std::int64_t clock_offset_ns_ = 0;  // steady_clock - CUPTI clock (0 with our timestamp callback)
};

}  // namespace tb::profiling
