#include <trainbench/training/torch/precision.hpp>

#include <stdexcept>

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <torch/cuda.h>

#if defined(TRAINBENCH_TORCH_CUDA)
#include <ATen/cuda/CUDAContextLight.h>
#endif

namespace tb {

namespace {

PrecisionSupport yes() { return {true, {}}; }
PrecisionSupport no(std::string reason) { return {false, std::move(reason)}; }

PrecisionSupport check_cpu(Precision precision) {
  const PrecisionDefinition& mode = definition(precision);
  return mode.cpu_unsupported ? no(mode.cpu_unsupported) : yes();
}

PrecisionSupport check_cuda(Precision precision) {
  if (!torch::cuda::is_available()) return no("no CUDA device available to LibTorch");
  const PrecisionDefinition& mode = definition(precision);
  if (mode.min_cuda_major == 0) return yes();
#if defined(TRAINBENCH_TORCH_CUDA)
  const auto* props = at::cuda::getCurrentDeviceProperties();
  if (props->major >= mode.min_cuda_major) return yes();
  return no(std::string(mode.cuda_requirement) + "; this GPU is " + std::to_string(props->major) + "." +
            std::to_string(props->minor));
#else
  return no(std::string(to_string(mode.reduced_dtype)) + " support unknown: trainbench was built without CUDA headers");
#endif
}

}  // namespace

PrecisionSupport check_precision(Precision precision, DeviceKind device) {
  return device == DeviceKind::cuda ? check_cuda(precision) : check_cpu(precision);
}

bool needs_grad_scaler(Precision precision) { return definition(precision).grad_scaler; }

c10::ScalarType scalar_type(ReducedDtype dtype) {
  switch (dtype) {
    case ReducedDtype::float16: return c10::ScalarType::Half;
    case ReducedDtype::bfloat16: return c10::ScalarType::BFloat16;
    case ReducedDtype::none: break;
  }
  return c10::ScalarType::Float;
}

c10::ScalarType autocast_dtype(Precision precision) { return scalar_type(definition(precision).reduced_dtype); }

c10::DeviceType device_type_of(DeviceKind device) {
  return device == DeviceKind::cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
}

PrecisionGuard::PrecisionGuard(Precision precision)
    : previous_tf32_cublas_(at::globalContext().allowTF32CuBLAS()),
      previous_tf32_cudnn_(at::globalContext().allowTF32CuDNN()) {
  const bool tf32 = definition(precision).tf32_math;
  at::globalContext().setAllowTF32CuBLAS(tf32);
  at::globalContext().setAllowTF32CuDNN(tf32);
}

PrecisionGuard::~PrecisionGuard() {
  at::globalContext().setAllowTF32CuBLAS(previous_tf32_cublas_);
  at::globalContext().setAllowTF32CuDNN(previous_tf32_cudnn_);
}

AutocastScope::AutocastScope(Precision precision, c10::DeviceType device_type) : device_type_(device_type) {
  if (!definition(precision).autocast) return;
  // Same order as torch.autocast.__enter__.
  previous_cache_enabled_ = at::autocast::is_autocast_cache_enabled();
  previous_enabled_ = at::autocast::is_autocast_enabled(device_type_);
  previous_dtype_ = at::autocast::get_autocast_dtype(device_type_);
  at::autocast::set_autocast_enabled(device_type_, true);
  at::autocast::set_autocast_dtype(device_type_, autocast_dtype(precision));
  at::autocast::increment_nesting();
  at::autocast::set_autocast_cache_enabled(previous_cache_enabled_);
  active_ = true;
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // Same order as torch.autocast.__exit__: drop cached casts when leaving the outermost scope.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_type_, previous_enabled_);
  at::autocast::set_autocast_dtype(device_type_, previous_dtype_);
  at::autocast::set_autocast_cache_enabled(previous_cache_enabled_);
}

}  // namespace tb
