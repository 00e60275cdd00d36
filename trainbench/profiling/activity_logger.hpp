// Kineto-style sink for profiling events: the host recorder and the CUPTI records are replayed
// into a logger, which decides the output format (ChromeTraceLogger: Trace Event Format JSON).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <trainbench/profiling/gpu_activity.hpp>
#include <trainbench/profiling/host_recorder.hpp>

namespace tb::profiling {

// Kineto's time base: an event at steady-clock time t is written at
// ts = (t + unix_minus_steady_ns - base_time_ns) / 1000 microseconds, and the trace's top-level
// "baseTimeNanoseconds" is base_time_ns, so ts + base / 1000 is Unix time in microseconds as in a
// Kineto trace, and a host trace given the Kineto trace's base lines up with it event for event.
struct TraceTimeBase {
  std::int64_t unix_minus_steady_ns = 0;     // Unix (realtime) clock minus steady clock
  std::optional<std::int64_t> base_time_ns;  // nullopt: the earliest event's second
};

// The offset between the Unix clock and the steady clock, read now.
TraceTimeBase unix_time_base(std::optional<std::int64_t> base_time_ns = std::nullopt);

struct TraceInfo {
  std::string name;                                    // scenario id
  nlohmann::json metadata = nlohmann::json::object();  // copied into the trace's "otherData"
  // Unset: ts counts from the earliest event (steady clock).
  std::optional<TraceTimeBase> time_base;
};

class ActivityLogger {
 public:
  virtual ~ActivityLogger() = default;
  virtual void handle_thread(const ThreadInfo& thread) = 0;
  virtual void handle_host_span(const HostSpan& span) = 0;
  virtual void handle_gpu_activity(const GpuActivity& activity) = 0;
  virtual void handle_runtime_call(const RuntimeCall& call) = 0;
  virtual void handle_counter(const CounterSample& counter) = 0;
  // Called once, after every event: writes the output.
  virtual void finalize(const TraceInfo& info) = 0;
};

// Feeds a recorder's threads, spans and counters plus decoded CUPTI records to a logger
// (finalize is left to the caller).
inline void replay(const HostRecorder& recorder, const DecodedRecords& records, ActivityLogger& logger) {
  for (const auto& t : recorder.threads()) logger.handle_thread(t);
  for (const auto& s : recorder.spans()) logger.handle_host_span(s);
  for (const auto& c : recorder.counters()) logger.handle_counter(c);
  for (const auto& a : records.activities) logger.handle_gpu_activity(a);
  for (const auto& c : records.calls) logger.handle_runtime_call(c);
}

}  // namespace tb::profiling
