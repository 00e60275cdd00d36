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
  switch (precision) {
    case Precision::fp32:
      return yes();
    case Precision::amp_bf16:
      // LibTorch's CPU autocast casts matmul/conv/linear to bfloat16 (oneDNN kernels).
      return yes();
    case Precision::tf32:
      return no("TF32 is a CUDA tensor-core mode; no CPU equivalent");
    case Precision::amp_fp16:
      // CPU autocast accepts float16 since torch 2.4, but it is not a CPU training mode: without
      // AVX512-FP16/AMX-FP16 most CPU float16 kernels convert to float32 and back, and fp16 needs
      // loss scaling that bf16 does not. Measuring it would benchmark conversions.
      return no("float16 autocast is not a meaningful CPU training mode (CPU float16 kernels "
                "mostly compute in float32 and fp16 needs loss scaling); use amp_bf16 on CPU");
  }
  return no("unknown precision");
}

PrecisionSupport check_cuda(Precision precision) {
  if (!torch::cuda::is_available()) return no("no CUDA device available to LibTorch");
  switch (precision) {
    case Precision::fp32:
    case Precision::tf32:
    case Precision::amp_fp16:
      return yes();
    case Precision::amp_bf16: {
#if defined(TRAINBENCH_TORCH_CUDA)
      const auto* props = at::cuda::getCurrentDeviceProperties();
      if (props->major >= 8) return yes();
      return no("bfloat16 needs compute capability >= 8.0 (Ampere); this GPU is " +
                std::to_string(props->major) + "." + std::to_string(props->minor));
#else
      return no("bfloat16 support unknown: trainbench was built without CUDA headers");
#endif
    }
  }
  return no("unknown precision");
}

}  // namespace

PrecisionSupport check_precision(Precision precision, const std::string& device) {
  if (device == "cpu") return check_cpu(precision);
  if (device == "cuda") return check_cuda(precision);
  return no("unknown device '" + device + "' (expected cpu or cuda)");
}

bool needs_grad_scaler(Precision precision) { return precision == Precision::amp_fp16; }

c10::ScalarType autocast_dtype(Precision precision) {
  switch (precision) {
    case Precision::amp_fp16:
      return c10::ScalarType::Half;
    case Precision::amp_bf16:
      return c10::ScalarType::BFloat16;
    case Precision::fp32:
    case Precision::tf32:
      break;
  }
  return c10::ScalarType::Float;
}

c10::DeviceType device_type_of(const std::string& device) {
  if (device == "cpu") return c10::DeviceType::CPU;
  if (device == "cuda") return c10::DeviceType::CUDA;
  throw std::invalid_argument("unknown device '" + device + "' (expected cpu or cuda)");
}

PrecisionGuard::PrecisionGuard(Precision precision)
    : previous_tf32_cublas_(at::globalContext().allowTF32CuBLAS()),
      previous_tf32_cudnn_(at::globalContext().allowTF32CuDNN()) {
  const bool tf32 = precision == Precision::tf32;
  at::globalContext().setAllowTF32CuBLAS(tf32);
  at::globalContext().setAllowTF32CuDNN(tf32);
}

PrecisionGuard::~PrecisionGuard() {
  at::globalContext().setAllowTF32CuBLAS(previous_tf32_cublas_);
  at::globalContext().setAllowTF32CuDNN(previous_tf32_cudnn_);
}

AutocastScope::AutocastScope(Precision precision, c10::DeviceType device_type)
    : device_type_(device_type) {
  if (precision != Precision::amp_fp16 && precision != Precision::amp_bf16) return;
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
