#include <trainbench/training/torch/multi_tensor_optimizer.hpp>

#include <cmath>
#include <stdexcept>
#include <utility>

#include <ATen/ATen.h>
#include <torch/optim/adam.h>

namespace tb {

namespace {

// Looks a parameter's state up in the groups of an earlier build (rebuilds are rare, so linear).
at::Tensor previous_state(const std::vector<std::vector<at::Tensor>>& params,
                          const std::vector<std::vector<at::Tensor>>& state, const at::Tensor& p) {
  for (std::size_t g = 0; g < params.size(); ++g)
    for (std::size_t i = 0; i < params[g].size() && i < state[g].size(); ++i)
      if (params[g][i].unsafeGetTensorImpl() == p.unsafeGetTensorImpl()) return state[g][i];
  return {};
}

}  // namespace

MultiTensorOptimizer::MultiTensorOptimizer(std::vector<at::Tensor> parameters, MultiTensorOptions options)
    : torch::optim::Optimizer(std::move(parameters), std::make_unique<torch::optim::AdamOptions>(options.lr)),
      options_(std::move(options)) {
  if (options_.algorithm != "adam" && options_.algorithm != "adamw" && options_.algorithm != "sgd")
    throw std::invalid_argument("unknown optimizer '" + options_.algorithm + "' (adam, adamw, sgd)");
}

bool MultiTensorOptimizer::graph_safe() const {
  return options_.algorithm == "sgd" || options_.kernel == UpdateKernel::fused;
}

bool MultiTensorOptimizer::same_parameters_have_gradients() const {
  std::size_t n = 0;
  for (const auto& group : param_groups())
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (n >= stepped_.size() || stepped_[n] != p.unsafeGetTensorImpl()) return false;
      ++n;
    }
  return n == stepped_.size();
}

void MultiTensorOptimizer::build_state() {
  // Keep what earlier steps accumulated for the parameters that are still here.
  std::vector<std::vector<at::Tensor>> old_params, old_avg, old_sq, old_mom, old_steps;
  for (auto& g : groups_) {
    old_params.push_back(std::move(g.params));
    old_avg.push_back(std::move(g.exp_avg));
    old_sq.push_back(std::move(g.exp_avg_sq));
    old_mom.push_back(std::move(g.momentum));
    old_steps.push_back(std::move(g.steps));
  }
  groups_.clear();
  stepped_.clear();
  std::vector<std::pair<c10::Device, c10::ScalarType>> keys;
  const bool adam = options_.algorithm != "sgd";
  const auto state_or = [&](const std::vector<std::vector<at::Tensor>>& state, const at::Tensor& p, auto make) {
    at::Tensor kept = previous_state(old_params, state, p);
    return kept.defined() ? kept : make();
  };
  for (const auto& group : param_groups())
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      stepped_.push_back(p.unsafeGetTensorImpl());
      const std::pair key{p.device(), p.scalar_type()};
      std::size_t k = 0;
      while (k < keys.size() && keys[k] != key) ++k;
      if (k == keys.size()) {
        keys.push_back(key);
        groups_.emplace_back();
      }
      Group& g = groups_[k];
      g.params.push_back(p);
      g.grads.push_back(p.grad());
      const auto zeros = [&] { return at::zeros_like(p, at::MemoryFormat::Preserve); };
      if (adam) {
        g.exp_avg.push_back(state_or(old_avg, p, zeros));
        g.exp_avg_sq.push_back(state_or(old_sq, p, zeros));
        if (options_.kernel == UpdateKernel::fused)
          g.steps.push_back(state_or(
              old_steps, p, [&] { return at::zeros({}, at::TensorOptions().device(p.device()).dtype(at::kFloat)); }));
      } else if (options_.momentum != 0.0) {
        // Zeros, not a copy of the first gradient as PyTorch starts: without dampening,
        // momentum * 0 + grad is that copy, and no first step differs from the others.
        g.momentum.push_back(state_or(old_mom, p, zeros));
      }
    }
}

at::Tensor MultiTensorOptimizer::step(LossClosure closure) {
  at::NoGradGuard no_grad;
  at::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  if (!same_parameters_have_gradients()) build_state();
  ++step_count_;
  for (Group& g : groups_) {
    // Gradients are new tensors after zero_grad(set_to_none): refresh the handles in place.
    for (std::size_t i = 0; i < g.params.size(); ++i) g.grads[i] = g.params[i].grad();
    step_group(g);
  }
  return loss;
}

void MultiTensorOptimizer::step_group(Group& g) {
  const bool fused = options_.kernel == UpdateKernel::fused;
  if (options_.algorithm == "sgd") fused ? sgd_fused(g) : sgd_foreach(g);
  else fused ? adam_fused(g) : adam_foreach(g);
}

// torch.optim._multi_tensor_adam without amsgrad, maximize or capturable.
void MultiTensorOptimizer::adam_foreach(Group& g) {
  const auto& o = options_;
  at::TensorList grads = g.grads;
  std::vector<at::Tensor> decayed;  // adam's L2 term makes new gradients; only then allocated
  if (o.weight_decay != 0.0) {
    if (o.algorithm == "adamw") {
      at::_foreach_mul_(g.params, 1.0 - o.lr * o.weight_decay);
    } else {
      decayed = at::_foreach_add(g.grads, g.params, o.weight_decay);
      grads = decayed;
    }
  }
  at::_foreach_lerp_(g.exp_avg, grads, 1.0 - o.beta1);
  at::_foreach_mul_(g.exp_avg_sq, o.beta2);
  at::_foreach_addcmul_(g.exp_avg_sq, grads, grads, 1.0 - o.beta2);
  const double step = static_cast<double>(step_count_);
  const double bias_correction1 = 1.0 - std::pow(o.beta1, step);
  const double bias_correction2_sqrt = std::sqrt(1.0 - std::pow(o.beta2, step));
  auto denom = at::_foreach_sqrt(g.exp_avg_sq);
  at::_foreach_div_(denom, bias_correction2_sqrt);
  at::_foreach_add_(denom, o.eps);
  at::_foreach_addcdiv_(g.params, g.exp_avg, denom, -o.lr / bias_correction1);
}

void MultiTensorOptimizer::adam_fused(Group& g) {
  const auto& o = options_;
  at::_foreach_add_(g.steps, 1.0);                  // on the device: a graph replay counts too
  const std::vector<at::Tensor> no_max_exp_avg_sq;  // amsgrad off
  if (o.algorithm == "adamw")
    at::_fused_adamw_(g.params, g.grads, g.exp_avg, g.exp_avg_sq, no_max_exp_avg_sq, g.steps, o.lr, o.beta1, o.beta2,
                      o.weight_decay, o.eps, /*amsgrad=*/false, /*maximize=*/false);
  else
    at::_fused_adam_(g.params, g.grads, g.exp_avg, g.exp_avg_sq, no_max_exp_avg_sq, g.steps, o.lr, o.beta1, o.beta2,
                     o.weight_decay, o.eps, /*amsgrad=*/false, /*maximize=*/false);
}

// torch.optim._multi_tensor_sgd without dampening, nesterov or maximize.
void MultiTensorOptimizer::sgd_foreach(Group& g) {
  const auto& o = options_;
  at::TensorList update = g.grads;
  std::vector<at::Tensor> decayed;
  if (o.weight_decay != 0.0) {
    decayed = at::_foreach_add(g.grads, g.params, o.weight_decay);
    update = decayed;
  }
  if (o.momentum != 0.0) {
    at::_foreach_mul_(g.momentum, o.momentum);
    at::_foreach_add_(g.momentum, update);
    update = g.momentum;
  }
  at::_foreach_add_(g.params, update, -o.lr);
}

void MultiTensorOptimizer::sgd_fused(Group& g) {
  const auto& o = options_;
  const std::vector<at::Tensor> no_momentum;
  at::_fused_sgd_(g.params, g.grads, o.momentum != 0.0 ? at::TensorList(g.momentum) : at::TensorList(no_momentum),
                  o.weight_decay, o.momentum, o.lr, /*dampening=*/0.0, /*nesterov=*/false, /*maximize=*/false,
                  /*is_first_step=*/false);
}

}  // namespace tb
