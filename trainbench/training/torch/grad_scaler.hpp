// Dynamic loss scaling for float16 mixed precision: a C++ port of torch.amp.GradScaler.
//
// Same defaults, same ATen kernels (_amp_foreach_non_finite_check_and_unscale_,
// _amp_update_scale_), same per-optimizer stage guard, so a scale trajectory recorded in Python
// replays exactly (tests/training/torch/test_grad_scaler.cpp). Typical step:
//
//   scaler.scale(loss).backward();   // every micro-batch
//   scaler.step(optimizer);          // unscales, skips optimizer.step() on inf/nan
//   scaler.update();                 // backoff on inf/nan, growth after growth_interval clean steps
#pragma once
#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/arg.h>

namespace torch::optim {
class Optimizer;
}

namespace tb {

struct GradScalerOptions {
  TORCH_ARG(double, init_scale) = 65536.0;
  TORCH_ARG(double, growth_factor) = 2.0;
  TORCH_ARG(double, backoff_factor) = 0.5;
  TORCH_ARG(int64_t, growth_interval) = 2000;
  TORCH_ARG(bool, enabled) = true;
};

class GradScaler {
 public:
  // Throws std::invalid_argument when enabled with growth_factor <= 1 or backoff_factor >= 1.
  explicit GradScaler(c10::Device device, GradScalerOptions options = {});

  // loss * scale (the scale tensor moved to loss's device if needed); loss unchanged if disabled.
  at::Tensor scale(const at::Tensor& loss);

  // Divides the optimizer's gradients by the scale in place and records inf/nan in found_inf.
  // At most once per optimizer between update() calls; throws std::logic_error otherwise.
  void unscale_(torch::optim::Optimizer& optimizer);

  // Unscales (unless unscale_ already ran) and calls optimizer.step() unless a gradient was
  // inf/nan. Returns whether the optimizer stepped. Reads found_inf once: one device sync, as
  // PyTorch's .item() does.
  bool step(torch::optim::Optimizer& optimizer);

  // Backoff if any optimizer saw inf/nan since the last update, growth after growth_interval
  // consecutive clean steps. Resets every optimizer's stage.
  void update();

  // Current scale (device sync); 1.0 when disabled, like GradScaler.get_scale().
  double scale_value() const;
  int64_t skipped_steps() const { return skipped_steps_; }
  bool enabled() const { return options_.enabled(); }
  const GradScalerOptions& options() const { return options_; }
  c10::Device device() const { return device_; }

 private:
  enum class Stage { ready, unscaled, stepped };

  // found_inf for one device; reused across steps (zeroed, never reallocated).
  struct DeviceFoundInf {
    c10::Device device;
    at::Tensor found_inf;
    at::Tensor inv_scale;  // copy of the scaler's inv_scale on this device
  };

  // PyTorch keeps this per id(optimizer); a harness has one or two optimizers, so a vector.
  struct OptimizerState {
    const torch::optim::Optimizer* optimizer = nullptr;
    Stage stage = Stage::ready;
    std::vector<DeviceFoundInf> per_device;
    std::vector<bool> device_used;  // which per_device entries hold this step's checks
  };

  // Gradients of one (device, dtype) group, the granularity of the foreach kernel.
  struct GradGroup {
    c10::Device device;
    c10::ScalarType dtype;
    std::vector<at::Tensor> grads;
  };

  OptimizerState& state_for(const torch::optim::Optimizer& optimizer);
  DeviceFoundInf& found_inf_for(OptimizerState& state, c10::Device device);
  void refresh_inv_scale();

  c10::Device device_;
  GradScalerOptions options_;
  at::Tensor scale_;             // float32 scalar on device_
  at::Tensor growth_tracker_;    // int32 scalar on device_
  at::Tensor inv_scale_double_;  // float64 scratch: PyTorch computes 1/scale in double
  at::Tensor inv_scale_;         // float32 scalar on device_
  at::Tensor found_inf_sum_;     // float32 scalar: combination when several checks were recorded
  std::vector<OptimizerState> states_;
  std::vector<GradGroup> groups_;  // scratch for unscale_, kept to reuse capacity
  int64_t skipped_steps_ = 0;
};

}  // namespace tb
