// Peak resident-set size of this process, resettable, for the CPU memory budget and the
// memory fit (on the CPU there is no caching allocator to ask).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace tb::capacity {

// Reads VmRSS / VmHWM from /proc/self/status. reset() writes "5" to /proc/self/clear_refs, which
// makes the kernel restart the high-water mark VmHWM from the current RSS. Where that write is
// not permitted (some sandboxes), a background thread samples VmRSS every millisecond and the
// peak is the largest sample since reset() (short spikes may then be missed; uses_kernel_peak()
// tells which mode is active).
class PeakRssProbe {
 public:
  enum class Mode { automatic, sampling };  // sampling: never use clear_refs (tests, odd kernels)
  explicit PeakRssProbe(Mode mode = Mode::automatic) : force_sampling_(mode == Mode::sampling) {}
  ~PeakRssProbe();
  PeakRssProbe(const PeakRssProbe&) = delete;
  PeakRssProbe& operator=(const PeakRssProbe&) = delete;

  // Restarts the peak from the current resident size.
  void reset();
  // Highest resident size since the last reset() (since process start before any reset).
  std::int64_t peak_rss_bytes() const;
  std::int64_t current_rss_bytes() const;
  // True when the peak comes from the kernel's VmHWM, false when it is sampled.
  bool uses_kernel_peak() const { return !sampling_.load(); }

 private:
  void start_sampler();
  void raise_sampled_peak(std::int64_t now) const;

  bool force_sampling_ = false;
  std::atomic<bool> sampling_{false};
  std::atomic<bool> stop_{false};
  mutable std::atomic<std::int64_t> sampled_peak_{0};  // raised by queries too
  std::thread sampler_;
};

// A "VmXXX:   1234 kB" field of /proc/self/status in bytes; -1 when absent (non-Linux).
std::int64_t read_proc_status_bytes(const std::string& field);

// Parses the text of a /proc/<pid>/status file (exposed for tests).
std::int64_t parse_proc_status_bytes(const std::string& status_text, const std::string& field);

}  // namespace tb::capacity
