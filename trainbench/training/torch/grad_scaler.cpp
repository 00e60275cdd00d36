#include <trainbench/training/torch/grad_scaler.hpp>

#include <stdexcept>

#include <ATen/ATen.h>
#include <ATen/ops/_amp_foreach_non_finite_check_and_unscale.h>
#include <ATen/ops/_amp_update_scale.h>
#include <c10/core/GradMode.h>
#include <torch/optim/optimizer.h>

namespace tb {

GradScaler::GradScaler(c10::Device device, GradScalerOptions options) : device_(device), options_(options) {
  if (!options_.enabled()) return;
  // Same checks and messages as torch.amp.GradScaler.__init__.
  if (options_.growth_factor() <= 1.0) throw std::invalid_argument("GradScaler: the growth factor must be > 1.0");
  if (options_.backoff_factor() >= 1.0) throw std::invalid_argument("GradScaler: the backoff factor must be < 1.0");

  const auto f32 = at::TensorOptions().dtype(at::kFloat).device(device_);
  // PyTorch creates these lazily on the loss's device; the harness knows the device up front.
  scale_ = at::full({}, options_.init_scale(), f32);
  growth_tracker_ = at::zeros({}, at::TensorOptions().dtype(at::kInt).device(device_));
  inv_scale_double_ = at::empty({}, at::TensorOptions().dtype(at::kDouble).device(device_));
  inv_scale_ = at::empty({}, f32);
  found_inf_sum_ = at::zeros({}, f32);
}

at::Tensor GradScaler::scale(const at::Tensor& loss) {
  if (!options_.enabled()) return loss;
  if (loss.device() == device_) return loss * scale_;
  return loss * scale_.to(loss.device(), /*non_blocking=*/true);
}

GradScaler::OptimizerState& GradScaler::state_for(const torch::optim::Optimizer& optimizer) {
  for (auto& state : states_)
    if (state.optimizer == &optimizer) return state;
  states_.push_back(OptimizerState{&optimizer, Stage::ready, {}, {}});
  return states_.back();
}

GradScaler::DeviceFoundInf& GradScaler::found_inf_for(OptimizerState& state, c10::Device device) {
  for (std::size_t i = 0; i < state.per_device.size(); ++i) {
    if (state.per_device[i].device == device) {
      if (!state.device_used[i]) {
        state.per_device[i].found_inf.zero_();
        if (device != device_) state.per_device[i].inv_scale.copy_(inv_scale_, true);
        state.device_used[i] = true;
      }
      return state.per_device[i];
    }
  }
  // First time this optimizer has gradients on this device: allocate once, reuse afterwards.
  const auto f32 = at::TensorOptions().dtype(at::kFloat).device(device);
  DeviceFoundInf entry{device, at::zeros({}, f32), device == device_ ? inv_scale_ : inv_scale_.to(device, true, true)};
  state.per_device.push_back(std::move(entry));
  state.device_used.push_back(true);
  return state.per_device.back();
}

void GradScaler::refresh_inv_scale() {
  // PyTorch: self._scale.double().reciprocal().float(), done in preallocated tensors.
  inv_scale_double_.copy_(scale_);
  inv_scale_double_.reciprocal_();
  inv_scale_.copy_(inv_scale_double_);
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled()) return;
  OptimizerState& state = state_for(optimizer);
  if (state.stage == Stage::unscaled)
    throw std::logic_error("GradScaler: unscale_() has already been called on this optimizer since the last update()");
  if (state.stage == Stage::stepped) throw std::logic_error("GradScaler: unscale_() is being called after step()");

  refresh_inv_scale();
  for (std::size_t i = 0; i < state.device_used.size(); ++i) state.device_used[i] = false;
  for (auto& group : groups_) group.grads.clear();

  c10::NoGradGuard no_grad;
  for (auto& param_group : optimizer.param_groups()) {
    for (auto& param : param_group.params()) {
      const at::Tensor& grad = param.grad();
      if (!grad.defined()) continue;
      if (grad.scalar_type() == at::kHalf) throw std::logic_error("GradScaler: attempting to unscale FP16 gradients");
      at::Tensor to_unscale = grad.is_sparse() ? grad._values() : grad;
      GradGroup* target = nullptr;
      for (auto& group : groups_) {
        if (group.device == to_unscale.device() && group.dtype == to_unscale.scalar_type()) {
          target = &group;
          break;
        }
      }
      if (target == nullptr) {
        groups_.push_back(GradGroup{to_unscale.device(), to_unscale.scalar_type(), {}});
        target = &groups_.back();
      }
      target->grads.push_back(std::move(to_unscale));
    }
  }

  for (auto& group : groups_) {
    if (group.grads.empty()) continue;
    DeviceFoundInf& checks = found_inf_for(state, group.device);
    at::_amp_foreach_non_finite_check_and_unscale_(group.grads, checks.found_inf, checks.inv_scale);
  }
  for (auto& group : groups_) group.grads.clear();  // drop references to the gradients
  state.stage = Stage::unscaled;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled()) {
    optimizer.step();
    return true;
  }
  OptimizerState& state = state_for(optimizer);
  if (state.stage == Stage::stepped)
    throw std::logic_error("GradScaler: step() has already been called since the last update()");
  if (state.stage == Stage::ready) unscale_(optimizer);

  bool any_check = false;
  double found = 0.0;
  for (std::size_t i = 0; i < state.per_device.size(); ++i) {
    if (!state.device_used[i]) continue;
    any_check = true;
    found += state.per_device[i].found_inf.item<float>();  // the one device sync per step
  }
  if (!any_check)
    throw std::logic_error(
        "GradScaler: no inf checks were recorded for this optimizer "
        "(no parameter has a gradient)");

  state.stage = Stage::stepped;
  if (found != 0.0) {
    ++skipped_steps_;
    return false;
  }
  optimizer.step();
  return true;
}

void GradScaler::update() {
  if (!options_.enabled()) return;

  // Combine every recorded check, as PyTorch sums found_inf over optimizers and devices.
  const at::Tensor* single = nullptr;
  int recorded = 0;
  for (const auto& state : states_) {
    if (state.stage == Stage::ready) continue;
    for (std::size_t i = 0; i < state.per_device.size(); ++i) {
      if (!state.device_used[i]) continue;
      if (recorded == 0) single = &state.per_device[i].found_inf;
      ++recorded;
    }
  }
  if (recorded == 0) throw std::logic_error("GradScaler: no inf checks were recorded prior to update()");

  const at::Tensor* found_inf = single;
  if (recorded > 1 || single->device() != device_) {
    found_inf_sum_.zero_();
    for (const auto& state : states_) {
      if (state.stage == Stage::ready) continue;
      for (std::size_t i = 0; i < state.per_device.size(); ++i)
        if (state.device_used[i]) found_inf_sum_.add_(state.per_device[i].found_inf.to(device_, /*non_blocking=*/true));
    }
    found_inf = &found_inf_sum_;
  }

  at::_amp_update_scale_(scale_, growth_tracker_, *found_inf, options_.growth_factor(), options_.backoff_factor(),
                         options_.growth_interval());

  for (auto& state : states_) {
    state.stage = Stage::ready;
    for (std::size_t i = 0; i < state.device_used.size(); ++i) state.device_used[i] = false;
  }
}

double GradScaler::scale_value() const {
  if (!options_.enabled()) return 1.0;
  return scale_.item<double>();
}

}  // namespace tb
