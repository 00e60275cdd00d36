// LibTorch's Kineto profiler around a profiling window: operator-level CPU events (aten::*,
// with input shapes) and, on CUDA builds, the GPU kernels LibTorch launches. The result is
// saved as a Chrome trace next to trainbench's own host trace.
//
// Worker threads: the profiler is started with ExperimentalConfig::profile_all_threads, which
// installs global RecordFunction callbacks, so operators run on data-loader worker threads are
// captured without those threads joining explicitly.
//
// CUPTI serves one subscriber at a time: never run this while CuptiCollector is active
// (check_profile_options rejects the combination).
#pragma once
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
  // Stops the profiler and writes the trace (Chrome trace JSON) to path.
  // std::runtime_error naming the path when not started or when writing fails.
  void stop_and_save(const std::string& path);
  bool running() const { return running_; }

 private:
  bool running_ = false;
};

}  // namespace tb
