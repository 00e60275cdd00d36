// The scenario's optimizer: its algorithm (adam, adamw, sgd) and how its update runs
// (optimizer_impl): for_loop is LibTorch's torch::optim class, foreach and fused are
// MultiTensorOptimizer (multi_tensor_optimizer.hpp).
#pragma once
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <trainbench/matrix/scenario.hpp>

namespace tb {

// The optimizer and update kernel the scenario names (unknown names are refused where the
// matrix is parsed).
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const ScenarioParams& params,
                                                        std::vector<at::Tensor> parameters);

// Whether the scenario's optimizer can be captured in a CUDA graph after warm-up (no host-side
// value that changes per step), and why not.
const char* optimizer_graph_unsafe_reason(const ScenarioParams& params);

}  // namespace tb
