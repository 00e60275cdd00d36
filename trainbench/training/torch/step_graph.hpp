// A CUDA graph holding one whole training step (forward, backward and the optimizer for every
// micro-batch), captured once after warm-up and then replayed: one launch per step instead of
// hundreds, the point of the cuda_graphs axis. Capture runs on a side stream, as
// torch.cuda.graph does, with the autocast cast cache off (a cached cast made during capture
// would point into the graph's private memory). Builds without CUDA get a class whose capture
// throws: the session skips cuda_graphs scenarios on the CPU before one is made.
#pragma once
#include <functional>
#include <memory>

#include <c10/core/Device.h>

namespace tb {

class StepGraph {
 public:
  explicit StepGraph(c10::Device device);
  ~StepGraph();
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;

  // Records `body` (which must launch device work only: no host sync, no allocation that
  // outlives the graph's pool unless it is static) into the graph. A capture error (a host
  // sync inside the model, say) propagates as the c10::Error it is.
  void capture(const std::function<void()>& body);
  bool captured() const { return captured_; }
  // Launches the recorded step on the current stream.
  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool captured_ = false;
};

}  // namespace tb
