// LibTorch's Kineto profiler around a profiling window: operator-level CPU events (aten::*,
// with input shapes) and, on CUDA builds, the GPU kernels LibTorch launches. The result is
// saved as a Chrome trace next to trainbench's own host trace.
//
// Worker threads: the profiler is started with ExperimentalConfig::profile_all_threads, which
// installs global RecordFunction callbacks, so operators run on data-loader worker threads are
// captured without those threads joining explicitly.
//
// While the pass runs, trace_ranges.hpp's ranges are on: the caller marks each profiled step as
// torch.profiler's step() does (advance_step, then a TraceRange named "ProfilerStep#N" around
// the step) and the trainer's phases appear nested in it.
//
// On a machine without a GPU, Kineto's GPU probe (device properties, queried when the trace is
// saved) logs "gpuGetDeviceCount failed" at ERROR level: without a GPU the pass sets
// KINETO_LOG_LEVEL=5 (nothing) before Kineto starts, unless the user set it. Kineto names
// every thread after the one that saves; the saved trace gets the names trainbench gave its
// threads (HostRecorder::set_thread_name: "thread 123 (loader-0)").
//
// CUPTI serves one subscriber at a time: never run this while CuptiCollector is active
// (check_profile_options rejects the combination).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tb {

class KinetoPass {
 public:
  KinetoPass() = default;
  KinetoPass(const KinetoPass&) = delete;
  KinetoPass& operator=(const KinetoPass&) = delete;
  // Stops a forgotten profiler without saving, so later scenarios start clean.
  ~KinetoPass();

  // cuda: also trace GPU activity (needs a CUDA build of LibTorch and a GPU).
  // std::runtime_error when a profiler is already running on this thread.
  void start(bool cuda, bool record_shapes = true);
  // Stops the profiler and writes the trace (Chrome trace JSON) to path; returns the trace's
  // "baseTimeNanoseconds" (event ts = (Unix time ns - base) / 1000), nullopt if it has none.
  // std::runtime_error naming the path when not started or when writing fails.
  std::optional<std::int64_t> stop_and_save(const std::string& path);
  // Advances Kineto's step counter (what torch.profiler's step() calls as _kineto_step).
  void advance_step();
  // A top-level key of the saved trace, its value JSON text (while running; e.g.
  // "distributedInfo", which Holistic Trace Analysis reads each file's rank from).
  void add_metadata(const std::string& key, const std::string& json_value);
  bool running() const { return running_; }

 private:
  bool running_ = false;
};

}  // namespace tb
