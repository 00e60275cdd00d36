// The foreach and fused optimizers (multi_tensor_optimizer.hpp) against LibTorch's per-parameter
// Adam, AdamW and SGD, the for_loop reference: same parameters and gradients for several steps
// must give the same parameters, to float tolerance. Also: a parameter without a gradient is
// left alone, the GradScaler can unscale through them, and the factory picks what the scenario
// names.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/grad_scaler.hpp>
#include <trainbench/training/torch/multi_tensor_optimizer.hpp>
#include <trainbench/training/torch/optimizer_factory.hpp>

namespace tb {
namespace {

struct Case {
  std::string algorithm;
  double lr, weight_decay, momentum;
};

std::vector<at::Tensor> fresh_parameters() {
  at::manual_seed(3);
  // Shapes of a small conv net: 4-d, 2-d and 1-d tensors in one group.
  return {at::randn({8, 3, 3, 3}).requires_grad_(), at::randn({16, 8}).requires_grad_(),
          at::randn({16}).requires_grad_()};
}

// Gradients of step `s` for each parameter, the same for both optimizers.
void set_gradients(std::vector<at::Tensor>& params, int s) {
  at::manual_seed(100 + s);
  for (auto& p : params) p.mutable_grad() = at::randn_like(p) * (s % 2 == 0 ? 1.0 : 0.1);
}

std::unique_ptr<torch::optim::Optimizer> reference(const Case& c, std::vector<at::Tensor> params) {
  if (c.algorithm == "adam")
    return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(c.lr).weight_decay(c.weight_decay));
  if (c.algorithm == "adamw")
    return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(c.lr).weight_decay(c.weight_decay));
  return std::make_unique<torch::optim::SGD>(
      params, torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weight_decay));
}

std::vector<at::Tensor> after_steps(
    const std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<at::Tensor>)>& make, int steps) {
  auto params = fresh_parameters();
  auto optimizer = make(params);
  for (int s = 0; s < steps; ++s) {
    set_gradients(params, s);
    optimizer->step();
    optimizer->zero_grad();  // set_to_none: the next gradients are new tensors
  }
  std::vector<at::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone());
  return out;
}

class MatchesForLoop : public ::testing::TestWithParam<std::tuple<Case, UpdateKernel>> {};

TEST_P(MatchesForLoop, AfterSeveralSteps) {
  const auto& [c, kernel] = GetParam();
  constexpr int kSteps = 6;
  const auto expected = after_steps([&](std::vector<at::Tensor> p) { return reference(c, p); }, kSteps);
  const auto actual = after_steps(
      [&](std::vector<at::Tensor> p) {
        return std::make_unique<MultiTensorOptimizer>(p, MultiTensorOptions{.algorithm = c.algorithm,
                                                                            .kernel = kernel,
                                                                            .lr = c.lr,
                                                                            .weight_decay = c.weight_decay,
                                                                            .momentum = c.momentum});
      },
      kSteps);
  const auto start = fresh_parameters();
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_FALSE(at::allclose(expected[i], start[i].detach())) << "parameter " << i << " did not move";
    EXPECT_TRUE(at::allclose(actual[i], expected[i], /*rtol=*/1e-5, /*atol=*/1e-6))
        << "parameter " << i << ": max difference " << (actual[i] - expected[i]).abs().max().item<double>();
  }
}

const Case kCases[] = {
    {"adam", 1e-2, 0.0, 0.0},  {"adam", 1e-2, 0.05, 0.0}, {"adamw", 1e-2, 0.01, 0.0},
    {"adamw", 1e-2, 0.2, 0.0}, {"sgd", 0.1, 0.0, 0.0},    {"sgd", 0.1, 0.01, 0.9},
};

std::string case_name(const ::testing::TestParamInfo<std::tuple<Case, UpdateKernel>>& info) {
  const auto& [c, kernel] = info.param;
  std::string name = c.algorithm + (c.weight_decay != 0 ? "_decay" : "") + (c.momentum != 0 ? "_momentum" : "");
  // The index tells apart the cases that differ only in a value (two decays).
  return name + (kernel == UpdateKernel::fused ? "_fused_" : "_foreach_") + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, MatchesForLoop,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(UpdateKernel::foreach, UpdateKernel::fused)),
                         case_name);

TEST(MultiTensorOptimizer, LeavesAParameterWithoutGradientAlone) {
  for (const auto kernel : {UpdateKernel::foreach, UpdateKernel::fused}) {
    auto params = fresh_parameters();
    const at::Tensor frozen_before = params[1].detach().clone();
    MultiTensorOptimizer opt(params, {.algorithm = "adamw", .kernel = kernel});
    for (int s = 0; s < 3; ++s) {
      set_gradients(params, s);
      params[1].mutable_grad() = at::Tensor();  // never gets a gradient
      opt.step();
    }
    EXPECT_TRUE(at::equal(params[1].detach(), frozen_before));
  }
}

TEST(MultiTensorOptimizer, GradScalerUnscalesThroughIt) {
  // The scaler walks param_groups(): the multi-tensor optimizer must expose its parameters.
  auto params = fresh_parameters();
  MultiTensorOptimizer opt(params, {.algorithm = "sgd", .kernel = UpdateKernel::fused, .lr = 0.1});
  GradScaler scaler(c10::Device(c10::kCPU), GradScalerOptions().init_scale(4.0));
  set_gradients(params, 0);
  const at::Tensor grad = params[2].grad().clone();
  for (auto& p : params) p.mutable_grad().mul_(4.0);  // as if the loss had been scaled
  scaler.unscale_(opt);
  EXPECT_TRUE(at::allclose(params[2].grad(), grad));
  EXPECT_TRUE(scaler.step(opt));
}

TEST(MultiTensorOptimizer, OnlyFusedAdamAndSgdAreGraphSafe) {
  const auto params = fresh_parameters();
  EXPECT_TRUE(MultiTensorOptimizer(params, {.algorithm = "adam", .kernel = UpdateKernel::fused}).graph_safe());
  EXPECT_FALSE(MultiTensorOptimizer(params, {.algorithm = "adam", .kernel = UpdateKernel::foreach}).graph_safe());
  EXPECT_TRUE(MultiTensorOptimizer(params, {.algorithm = "sgd", .kernel = UpdateKernel::foreach}).graph_safe());
  EXPECT_THROW(MultiTensorOptimizer(params, {.algorithm = "lamb"}), std::invalid_argument);
}

TEST(OptimizerFactory, BuildsWhatTheScenarioNames) {
  const auto params = fresh_parameters();
  ScenarioParams p;
  p.optimizer = tb::OptimizerKind::adamw;
  p.optimizer_impl = tb::OptimizerImpl::for_loop;
  EXPECT_NE(dynamic_cast<torch::optim::AdamW*>(make_optimizer(p, params).get()), nullptr);
  p.optimizer_impl = tb::OptimizerImpl::fused;
  const auto fused = make_optimizer(p, params);
  const auto* multi = dynamic_cast<MultiTensorOptimizer*>(fused.get());
  ASSERT_NE(multi, nullptr);
  EXPECT_EQ(multi->options().algorithm, "adamw");
  EXPECT_EQ(multi->options().kernel, UpdateKernel::fused);
  p.optimizer = tb::OptimizerKind::sgd;
  p.optimizer_impl = tb::OptimizerImpl::for_loop;
  EXPECT_NE(dynamic_cast<torch::optim::SGD*>(make_optimizer(p, params).get()), nullptr);
  // Graph safety: for_loop and foreach Adam keep host-side step counts.
  p.optimizer = tb::OptimizerKind::adam;
  p.optimizer_impl = tb::OptimizerImpl::foreach;
  EXPECT_NE(optimizer_graph_unsafe_reason(p), nullptr);
  p.optimizer_impl = tb::OptimizerImpl::fused;
  EXPECT_EQ(optimizer_graph_unsafe_reason(p), nullptr);
}

}  // namespace
}  // namespace tb
