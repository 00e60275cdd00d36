// Adam, AdamW and SGD whose update runs over all parameters at once, the two implementations
// PyTorch offers beside its per-parameter loop:
//  * foreach: ATen's _foreach_* kernels, a few launches per step for every tensor together
//    (torch.optim's foreach=True);
//  * fused:   one kernel per (device, dtype) group, _fused_adam_ / _fused_adamw_ / _fused_sgd_
//    (fused=True); the step counts live on the device, so the update can be captured in a CUDA
//    graph.
// The per-parameter loop ("for_loop") is LibTorch's own torch::optim::Adam/AdamW/SGD, the
// reference these are tested against (tests/training/torch/test_multi_tensor_optimizer.cpp).
// Update rules and defaults are torch.optim's: betas (0.9, 0.999), eps 1e-8, L2 weight decay for
// Adam and SGD, decoupled for AdamW, no dampening or Nesterov.
//
// State is built on the first step from the parameters that have a gradient then, as PyTorch
// does; a later step where that set changes rebuilds the lists, keeping each parameter's state
// (rare: a frozen layer thawed; foreach Adam's step count is then shared, not per parameter).
// The steady-state step allocates no host containers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

namespace tb {

enum class UpdateKernel { foreach, fused };

struct MultiTensorOptions {
  std::string algorithm = "adam";  // "adam", "adamw", "sgd"
  UpdateKernel kernel = UpdateKernel::foreach;
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;  // sgd
};

class MultiTensorOptimizer final : public torch::optim::Optimizer {
 public:
  // Throws std::invalid_argument for an unknown algorithm.
  MultiTensorOptimizer(std::vector<at::Tensor> parameters, MultiTensorOptions options);

  at::Tensor step(LossClosure closure = nullptr) override;

  // Whether a step can be captured in a CUDA graph once warmed up: no host-side value that
  // changes from step to step (fused Adam keeps its step counts on the device; SGD has none).
  bool graph_safe() const;

  const MultiTensorOptions& options() const { return options_; }

 private:
  // The parameters of one (device, dtype), the granularity of the kernels.
  struct Group {
    std::vector<at::Tensor> params, grads;
    std::vector<at::Tensor> exp_avg, exp_avg_sq;  // adam, adamw
    std::vector<at::Tensor> momentum;             // sgd with momentum
    std::vector<at::Tensor> steps;                // fused adam: one float32 count per parameter
  };

  bool same_parameters_have_gradients() const;
  void build_state();
  void step_group(Group& g);
  void adam_foreach(Group& g);
  void adam_fused(Group& g);
  void sgd_foreach(Group& g);
  void sgd_fused(Group& g);

  MultiTensorOptions options_;
  std::vector<Group> groups_;
  std::vector<const at::TensorImpl*> stepped_;  // the parameters the state was built for, in order
  std::int64_t step_count_ = 0;                 // foreach adam: bias correction on the host
};

}  // namespace tb
