// Record of CPU spans and counters during the profiling pass, from the training thread and the
// data-loader worker threads. Storage is reserved up front and never grows while recording (a
// full recorder drops and counts), so recording costs a clock read plus an uncontended lock.
//
//   HostRecorder rec;                      // capacity reserved here
//   ActiveRecorderScope active(rec);       // TB_HOST_SPAN anywhere now records into rec
//   { TB_HOST_SPAN("decode"); ... }        // in a dataset's get() on a worker thread
//
// When no recorder is active, TB_HOST_SPAN costs one atomic load.
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tb::profiling {

// steady_clock nanoseconds: the one host timeline that spans, counters and (shifted) CUPTI
// records share.
inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Categories used by the trainer and understood by summaries and the trace writer.
inline constexpr const char* kCategoryPhase = "phase";  // data_wait, h2d, forward, ...
inline constexpr const char* kCategoryStep = "step";    // one optimizer step
inline constexpr const char* kCategoryHost = "host";    // anything else (TB_HOST_SPAN default)

struct HostSpan {
  std::uint32_t thread = 0;              // small id, index into HostRecorder::threads()
  const char* name = "";                 // static string (string literal or kPhaseNames)
  const char* category = kCategoryHost;  // static string
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t step = -1;  // optimizer-step index when known, else -1
};

struct CounterSample {
  const char* name = "";  // static string, e.g. "memory_allocated_bytes"
  std::int64_t ts_ns = 0;
  double value = 0;
};

struct ThreadInfo {
  std::uint32_t id = 0;
  std::string name;  // "main", "loader-0", ... ("thread N" when never named)
};

class HostRecorder {
 public:
  explicit HostRecorder(std::size_t span_capacity = 1 << 16, std::size_t counter_capacity = 1 << 12);
  HostRecorder(const HostRecorder&) = delete;
  HostRecorder& operator=(const HostRecorder&) = delete;

  // Records a finished span for the calling thread; dropped (and counted) when full.
  void record_span(const char* name, const char* category, std::int64_t begin_ns, std::int64_t end_ns,
                   std::int64_t step = -1);
  void record_counter(const char* name, double value, std::int64_t ts_ns = now_ns());

  // Names the calling thread, for every recorder it records into now or later (thread-local),
  // and remembers the name under its OS thread id (named_os_threads).
  static void set_thread_name(const std::string& name);
  // (OS thread id, name) of every thread named so far in this process, for traces written by
  // other profilers (Kineto labels every thread with the name of the thread that saves).
  static std::vector<std::pair<std::int64_t, std::string>> named_os_threads();

  // Snapshots (copies under the lock; safe while other threads still record).
  std::vector<HostSpan> spans() const;
  std::vector<CounterSample> counters() const;
  std::vector<ThreadInfo> threads() const;
  std::size_t dropped() const;
  std::int64_t created_ns() const { return created_ns_; }
  void clear();

 private:
  std::uint32_t thread_id_locked();

  const std::uint64_t epoch_;  // distinguishes recorders in the thread-local id cache
  const std::int64_t created_ns_;
  mutable std::mutex mutex_;
  std::vector<HostSpan> spans_;
  std::vector<CounterSample> counters_;
  std::vector<ThreadInfo> threads_;
  std::size_t dropped_ = 0;
};

// The recorder TB_HOST_SPAN writes into (nullptr: recording off).
HostRecorder* active_recorder() noexcept;
void set_active_recorder(HostRecorder* recorder) noexcept;

// Activates a recorder for a scope (the profiling window) and restores the previous one.
class ActiveRecorderScope {
 public:
  explicit ActiveRecorderScope(HostRecorder& recorder) : previous_(active_recorder()) {
    set_active_recorder(&recorder);
  }
  ~ActiveRecorderScope() { set_active_recorder(previous_); }
  ActiveRecorderScope(const ActiveRecorderScope&) = delete;
  ActiveRecorderScope& operator=(const ActiveRecorderScope&) = delete;

 private:
  HostRecorder* previous_;
};

// RAII span into the active recorder; a no-op when none is active at construction.
class HostSpanScope {
 public:
  explicit HostSpanScope(const char* name, const char* category = kCategoryHost, std::int64_t step = -1) noexcept
      : recorder_(active_recorder()), name_(name), category_(category), step_(step) {
    if (recorder_ != nullptr) begin_ns_ = now_ns();
  }
  ~HostSpanScope() {
    if (recorder_ != nullptr) recorder_->record_span(name_, category_, begin_ns_, now_ns(), step_);
  }
  HostSpanScope(const HostSpanScope&) = delete;
  HostSpanScope& operator=(const HostSpanScope&) = delete;

 private:
  HostRecorder* recorder_;
  const char* name_;
  const char* category_;
  std::int64_t step_;
  std::int64_t begin_ns_ = 0;
};

}  // namespace tb::profiling

#define TB_HOST_SPAN_CONCAT_INNER(a, b) a##b
#define TB_HOST_SPAN_CONCAT(a, b) TB_HOST_SPAN_CONCAT_INNER(a, b)
// TB_HOST_SPAN("decode") or TB_HOST_SPAN("collate", "loader"): name and category must be static.
#define TB_HOST_SPAN(...) \
  const ::tb::profiling::HostSpanScope TB_HOST_SPAN_CONCAT(tb_host_span_, __LINE__) { __VA_ARGS__ }
