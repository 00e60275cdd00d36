#include <trainbench/training/torch/optimizer_factory.hpp>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <trainbench/training/torch/multi_tensor_optimizer.hpp>

namespace tb {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const ScenarioParams& params,
                                                        std::vector<at::Tensor> parameters) {
  const OptimizerImpl impl = params.optimizer_impl;
  if (impl != OptimizerImpl::for_loop) {
    MultiTensorOptions o;
    o.algorithm = to_string(params.optimizer);
    o.kernel = impl == OptimizerImpl::fused ? UpdateKernel::fused : UpdateKernel::foreach;
    o.lr = params.learning_rate;
    o.weight_decay = params.weight_decay;
    o.momentum = params.momentum;
    return std::make_unique<MultiTensorOptimizer>(std::move(parameters), o);
  }
  switch (params.optimizer) {
    case OptimizerKind::adam:
      return std::make_unique<torch::optim::Adam>(
          std::move(parameters), torch::optim::AdamOptions(params.learning_rate).weight_decay(params.weight_decay));
    case OptimizerKind::adamw:
      return std::make_unique<torch::optim::AdamW>(
          std::move(parameters), torch::optim::AdamWOptions(params.learning_rate).weight_decay(params.weight_decay));
    case OptimizerKind::sgd: break;
  }
  return std::make_unique<torch::optim::SGD>(
      std::move(parameters),
      torch::optim::SGDOptions(params.learning_rate).momentum(params.momentum).weight_decay(params.weight_decay));
}

const char* optimizer_graph_unsafe_reason(const ScenarioParams& params) {
  if (params.optimizer == OptimizerKind::sgd || params.optimizer_impl == OptimizerImpl::fused) return nullptr;
  return params.optimizer_impl == OptimizerImpl::foreach
             ? "foreach Adam computes its bias correction on the host from the step count, which a graph replay "
               "would freeze: use optimizer_impl \"fused\" (step counts on the device) or sgd"
             : "LibTorch's Adam keeps its step count on the host and computes its bias correction there, which a "
               "graph replay would freeze: use optimizer_impl \"fused\" (step counts on the device) or sgd";
}

}  // namespace tb
