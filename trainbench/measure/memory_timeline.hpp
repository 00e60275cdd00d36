// Memory over time during the profiling window: a sampler thread reads a memory figure at a
// fixed interval (the process's resident set from /proc/self/statm on the CPU; the CUDA caching
// allocator's allocated bytes on a GPU, read by a function the torch side passes in), so the
// training step itself does nothing extra. The series is bounded: past `max_points` every other
// point is dropped and the stride doubles, while the peak is kept over every reading.
//
//   MemorySampler sampler(read_statm_rss_bytes, "rss");
//   sampler.start();  ... profiled steps ...  const MemoryTimeline t = sampler.stop();
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

struct MemoryPoint {
  std::int64_t ts_ns = 0;  // steady_clock nanoseconds (the host trace's timeline)
  std::int64_t bytes = 0;
};

struct MemoryTimeline {
  std::string source;         // "rss" or "cuda_allocated"
  double interval_ms = 0;     // between kept points (the sampling interval times the stride)
  std::int64_t start_ns = 0;  // when sampling started; t_ms counts from here
  std::vector<MemoryPoint> points;
  std::int64_t peak_bytes = 0;  // over every reading, kept or not
  std::int64_t peak_ts_ns = 0;
  int readings = 0;  // every reading taken, kept or not

  bool empty() const { return points.empty(); }
  double t_ms(const MemoryPoint& p) const { return static_cast<double>(p.ts_ns - start_ns) / 1e6; }
};

// The resident-set bytes of /proc/self/statm text (its second field, in pages); nullopt when
// malformed.
std::optional<std::int64_t> parse_statm_rss_bytes(std::string_view text, long page_size);

// This process's resident set now; -1 when /proc/self/statm cannot be read (not Linux).
std::int64_t read_statm_rss_bytes();

class MemorySampler {
 public:
  // `read` returns the figure in bytes (negative: no reading, skipped); it runs on the sampler
  // thread, so it must be safe to call from another thread than the training loop's.
  explicit MemorySampler(std::function<std::int64_t()> read, std::string source,
                         std::chrono::microseconds interval = std::chrono::milliseconds(1),
                         std::size_t max_points = 2000);
  ~MemorySampler();  // stops a running sampler
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;

  // Takes a first reading, then one every `interval` on its own thread. std::logic_error when
  // already running.
  void start();
  // Takes a last reading and returns the series (an empty one when never started).
  MemoryTimeline stop();

 private:
  void take_reading();  // under mutex_
  void loop();

  std::function<std::int64_t()> read_;
  std::chrono::microseconds interval_;
  std::size_t max_points_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
  MemoryTimeline timeline_;
  int stride_ = 1;  // one point kept every `stride_` readings
};

// results.json's compact series: {"source","interval_ms","peak_bytes","peak_t_ms","readings",
// "t_ms":[...],"bytes":[...]} (two arrays of the same length, t_ms from the window's start).
nlohmann::json memory_timeline_json(const MemoryTimeline& t);

}  // namespace tb
