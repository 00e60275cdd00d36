// The optimisation axes beyond the article's four (memory_format, pin_memory, optimizer_impl,
// cudnn_benchmark, cuda_graphs): where each can run, and the process-wide switch one of them is.
// What each does to the step lives in the trainer (trainer.hpp), the loader (batch_stream.hpp),
// the optimizer factory and the prefetcher.
#pragma once
#include <string>

#include <torch/nn/module.h>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {

// Why this scenario's optimisation settings cannot run as asked ("" when they can): the
// CUDA-only ones on the CPU, channels_last on a model with nothing 4-d, cuda_graphs where the
// step cannot be captured. The reason becomes the scenario's skip message.
std::string optimisation_unsupported_reason(const ScenarioParams& params, torch::nn::Module& model,
                                            const DatasetInfo& data);

// cuDNN's autotuner on or off for a scenario's lifetime, restoring the previous setting after.
class CudnnBenchmarkGuard {
 public:
  explicit CudnnBenchmarkGuard(bool enabled);
  ~CudnnBenchmarkGuard();
  CudnnBenchmarkGuard(const CudnnBenchmarkGuard&) = delete;
  CudnnBenchmarkGuard& operator=(const CudnnBenchmarkGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace tb
