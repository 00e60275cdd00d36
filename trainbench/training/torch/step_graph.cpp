#include <trainbench/training/torch/step_graph.hpp>

#include <stdexcept>

#include <ATen/autocast_mode.h>

#if defined(TRAINBENCH_TORCH_CUDA)
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace tb {

#if defined(TRAINBENCH_TORCH_CUDA)

namespace {

// The autocast cast cache off for a scope, as it was afterwards (also when the capture throws).
class AutocastCacheOff {
 public:
  AutocastCacheOff() : previous_(at::autocast::is_autocast_cache_enabled()) {
    at::autocast::set_autocast_cache_enabled(false);
  }
  ~AutocastCacheOff() { at::autocast::set_autocast_cache_enabled(previous_); }
  AutocastCacheOff(const AutocastCacheOff&) = delete;
  AutocastCacheOff& operator=(const AutocastCacheOff&) = delete;

 private:
  bool previous_;
};

}  // namespace

struct StepGraph::Impl {
  at::cuda::CUDAGraph graph;
};

StepGraph::StepGraph(c10::Device device) : impl_(std::make_unique<Impl>()) {
  if (!device.is_cuda()) throw std::invalid_argument("a CUDA graph needs a CUDA device");
}

StepGraph::~StepGraph() = default;

void StepGraph::capture(const std::function<void()>& body) {
  // The side stream starts after everything already queued on the current one (the warm-up).
  const auto current = c10::cuda::getCurrentCUDAStream();
  const auto side = c10::cuda::getStreamFromPool();
  at::cuda::CUDAEvent queued;
  queued.record(current);
  queued.block(side);
  {
    const c10::cuda::CUDAStreamGuard on_side(side);
    const AutocastCacheOff cache_off;
    impl_->graph.capture_begin();
    body();
    impl_->graph.capture_end();
  }
  at::cuda::CUDAEvent done;
  done.record(side);
  done.block(current);
  captured_ = true;
}

void StepGraph::replay() { impl_->graph.replay(); }

#else

struct StepGraph::Impl {};

StepGraph::StepGraph(c10::Device) { throw std::invalid_argument("this build has no CUDA: no CUDA graphs"); }
StepGraph::~StepGraph() = default;
void StepGraph::capture(const std::function<void()>&) {}
void StepGraph::replay() {}

#endif

}  // namespace tb
