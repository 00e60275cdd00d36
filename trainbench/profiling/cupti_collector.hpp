// CUPTI activity collection for a bounded profiling window (GPU only). Compiled into
// trainbench_torch only when libcupti is found (TRAINBENCH_HAVE_CUPTI); guard uses with it.
//
//   CuptiCollector cupti;
//   cupti.start();                       // before the window's first step
//   ... window steps ...
//   DecodedRecords recs = cupti.stop();  // syncs the device, flushes, disables
//
// CUPTI's buffer callbacks are process-wide: at most one collector runs at a time (start()
// throws otherwise); completed buffers go to the running one.
//
// CUPTI allows one activity subscriber per process: never run this while the Kineto pass
// (which uses CUPTI through LibTorch) is active. Timestamps come back on the steady_clock host
// timeline, so they line up with HostRecorder spans.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>

#include <trainbench/profiling/gpu_activity.hpp>

namespace tb::profiling {

class CuptiCollector {
 public:
  CuptiCollector() = default;
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;
  ~CuptiCollector();  // stops (discarding records) if still running

  // Enables kernel, memcpy, memset, runtime, driver, synchronization and overhead records.
  // std::runtime_error with CUPTI's message when CUPTI refuses (e.g. another subscriber) or
  // when another collector is running.
  void start();
  // Ends the window and returns every record of it (timestamps on the host timeline).
  DecodedRecords stop();
  bool running() const { return running_; }

  // Called from CUPTI's buffer-completed callback (any thread).
  void on_buffer_completed(std::uint8_t* buffer, std::size_t valid_size, std::uint64_t dropped);

 private:
  std::mutex mutex_;
  DecodedRecords store_;
  bool running_ = false;
  std::int64_t clock_offset_ns_ = 0;  // steady_clock - CUPTI clock (0 with our timestamp callback)
};

}  // namespace tb::profiling
