// Trace Event Format writer (opens in ui.perfetto.dev and chrome://tracing). Events are
// buffered and serialized once, in finalize, so logging during the window stays cheap.
//
// Layout: process "Host" holds one track per recorded thread (main loop, data-loader workers),
// one "CUDA API" track per OS thread that called CUDA, and a "CUPTI overhead" track; process
// "GPU d" holds one track per stream plus a synchronization track. Flow arrows join each API call
// to the GPU work it launched (by correlation id); counters become "C" tracks. Timestamps are
// microseconds from the earliest event, or, with TraceInfo::time_base, in Kineto's time base
// (microseconds since "baseTimeNanoseconds", Unix clock), the same as a Kineto trace's.
#pragma once
#include <string>
#include <vector>

#include <trainbench/profiling/activity_logger.hpp>

namespace tb::profiling {

class ChromeTraceLogger : public ActivityLogger {
 public:
  // path: where finalize writes; gzip: write gzip-compressed (path should end in .json.gz).
  explicit ChromeTraceLogger(std::string path = "", bool gzip = false);

  void handle_thread(const ThreadInfo& thread) override;
  void handle_host_span(const HostSpan& span) override;
  void handle_gpu_activity(const GpuActivity& activity) override;
  void handle_runtime_call(const RuntimeCall& call) override;
  void handle_counter(const CounterSample& counter) override;
  // Serializes and writes the file; std::runtime_error naming the path when writing fails.
  void finalize(const TraceInfo& info) override;

  // The whole trace as JSON text (what finalize writes).
  std::string serialize(const TraceInfo& info) const;
  std::size_t event_count() const;

 private:
  std::string path_;
  bool gzip_;
  std::vector<ThreadInfo> threads_;
  std::vector<HostSpan> spans_;
  std::vector<GpuActivity> activities_;
  std::vector<RuntimeCall> calls_;
  std::vector<CounterSample> counters_;
};

// Writes text to path durably (trainbench/results/durable_file.hpp), gzip-compressed when gzip is set;
// OutputError naming the path when it cannot be written.
void write_text_file(const std::string& path, const std::string& text, bool gzip);

// One call for the trainer: replays the recorder and records and writes the trace.
void write_chrome_trace(const HostRecorder& recorder, const std::vector<GpuActivity>& activities,
                        const std::vector<RuntimeCall>& calls, const std::string& path, bool gzip,
                        const TraceInfo& info = {});

// File name for a scenario's trace: "mlp/fp32/w0/a1/b64" + "host" -> "mlp_fp32_w0_a1_b64.host.json"
// (".json.gz" with gzip). Safe for any scenario id. Kineto traces use kKinetoTraceKind, which
// gives "<scenario>.pt.trace.json": the name TensorBoard's profiler plugin loads, the scenario
// being its worker.
inline constexpr const char* kKinetoTraceKind = "pt.trace";
std::string trace_file_name(const std::string& scenario_id, const std::string& kind, bool gzip);

}  // namespace tb::profiling
