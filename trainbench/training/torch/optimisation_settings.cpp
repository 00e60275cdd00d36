#include <trainbench/training/torch/optimisation_settings.hpp>

#include <ATen/Context.h>

#include <trainbench/training/torch/optimizer_factory.hpp>

namespace tb {

namespace {

bool has_4d_tensor(torch::nn::Module& model) {
  for (const auto& p : model.parameters())
    if (p.dim() == 4) return true;
  return false;
}

}  // namespace

std::string optimisation_unsupported_reason(const ScenarioParams& p, torch::nn::Module& model,
                                            const DatasetInfo& data) {
  const bool cuda = p.device == DeviceKind::cuda;
  if (p.pin_memory && !cuda)
    return "pin_memory: page-locked host batches and asynchronous copies only matter for a CUDA device; "
           "on the CPU there is no copy to overlap";
  if (p.cudnn_benchmark && !cuda) return "cudnn_benchmark: cuDNN autotuning needs a CUDA device";
  if (p.cuda_graphs) {
    if (!cuda) return "cuda_graphs: CUDA graphs need a CUDA device";
    if (p.precision == Precision::amp_fp16)
      return "cuda_graphs: float16's gradient scaler decides on the host whether to skip a step (one device "
             "sync per step), which a captured graph cannot do; use amp_bf16 (no scaler)";
    if (is_data_parallel(p))
      return "cuda_graphs: the data-parallel reducer launches its all-reduces from autograd hooks on the host; "
             "not captured in this version";
    if (const char* why = optimizer_graph_unsafe_reason(p)) return std::string("cuda_graphs: ") + why;
  }
  if (p.memory_format == MemoryFormatKind::channels_last && !has_4d_tensor(model))
    return "memory_format channels_last: model '" + p.model + "' has no 4-d (convolution) weights" +
           (data.input_shape.size() == 3 ? "" : " and no image inputs") + ", so nothing would change";
  return "";
}

CudnnBenchmarkGuard::CudnnBenchmarkGuard(bool enabled) : previous_(at::globalContext().benchmarkCuDNN()) {
  at::globalContext().setBenchmarkCuDNN(enabled);
}

CudnnBenchmarkGuard::~CudnnBenchmarkGuard() { at::globalContext().setBenchmarkCuDNN(previous_); }

}  // namespace tb
