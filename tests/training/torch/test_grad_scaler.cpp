// tb::GradScaler against trajectories recorded from torch.amp.GradScaler
// (scripts/make_scaler_fixture.py -> tests/fixtures/grad_scaler_trajectory.json).
#include <trainbench/training/torch/grad_scaler.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/optim/sgd.h>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

json load_fixture() {
  const std::string path = std::string(TB_SOURCE_DIR) + "/tests/fixtures/grad_scaler_trajectory.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return json::parse(in);
}

double decode(const json& v) {
  if (v.is_number()) return v.get<double>();
  const auto s = v.get<std::string>();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  throw std::runtime_error("fixture: bad number '" + s + "'");
}

at::ScalarType dtype_of(const std::string& name) {
  if (name == "float32") return at::kFloat;
  if (name == "float64") return at::kDouble;
  throw std::runtime_error("fixture: unsupported dtype " + name);
}

at::Tensor tensor_from(const json& values, const std::vector<int64_t>& shape, at::ScalarType dtype) {
  std::vector<double> data;
  for (const auto& v : values) data.push_back(decode(v));
  // Values were recorded from tensors of `dtype`, so the double -> dtype conversion is exact.
  return at::tensor(data, at::kDouble).to(dtype).reshape(shape);
}

tb::GradScalerOptions options_from(const json& o) {
  tb::GradScalerOptions options;
  if (o.contains("init_scale")) options.init_scale(o["init_scale"].get<double>());
  if (o.contains("growth_factor")) options.growth_factor(o["growth_factor"].get<double>());
  if (o.contains("backoff_factor")) options.backoff_factor(o["backoff_factor"].get<double>());
  if (o.contains("growth_interval")) options.growth_interval(o["growth_interval"].get<int64_t>());
  if (o.contains("enabled")) options.enabled(o["enabled"].get<bool>());
  return options;
}

void replay(const json& trajectory) {
  SCOPED_TRACE("trajectory " + trajectory["name"].get<std::string>());
  std::vector<at::Tensor> params;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<at::ScalarType> dtypes;
  for (const auto& p : trajectory["params_initial"]) {
    shapes.push_back(p["shape"].get<std::vector<int64_t>>());
    dtypes.push_back(dtype_of(p["dtype"].get<std::string>()));
    params.push_back(tensor_from(p["values"], shapes.back(), dtypes.back()).set_requires_grad(true));
  }
  const auto& opt = trajectory["optimizer"];
  torch::optim::SGD optimizer(
      params, torch::optim::SGDOptions(opt["lr"].get<double>()).momentum(opt["momentum"].get<double>()));
  tb::GradScaler scaler(c10::Device(c10::kCPU), options_from(trajectory["options"]));

  int64_t expected_skips = 0;
  for (const auto& step : trajectory["steps"]) {
    SCOPED_TRACE("step " + std::to_string(step["step"].get<int>()));
    EXPECT_EQ(scaler.scale_value(), step["scale_before"].get<double>());
    optimizer.zero_grad(/*set_to_none=*/true);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const at::Tensor g = tensor_from(step["grads"][i], shapes[i], dtypes[i]);
      params[i].mutable_grad() = scaler.scale(g).detach();  // what backward() of a scaled loss leaves
    }
    if (step["explicit_unscale"].get<bool>()) scaler.unscale_(optimizer);
    const bool stepped = scaler.step(optimizer);
    scaler.update();

    ASSERT_EQ(stepped, step["stepped"].get<bool>());
    if (!stepped) ++expected_skips;
    ASSERT_EQ(scaler.scale_value(), step["scale_after_update"].get<double>());
    for (std::size_t i = 0; i < params.size(); ++i) {
      const at::Tensor expected = tensor_from(step["params_after"][i], shapes[i], at::kDouble);
      const double max_diff = (params[i].detach().to(at::kDouble) - expected).abs().max().item<double>();
      EXPECT_LE(max_diff, 1e-6) << "param " << i;
    }
  }
  EXPECT_EQ(scaler.skipped_steps(), expected_skips);
  EXPECT_GT(expected_skips, 0) << "fixture should exercise skipped steps";
}

TEST(GradScaler, ReplaysPyTorchTrajectories) {
  const json fixture = load_fixture();
  ASSERT_GE(fixture["trajectories"].size(), 2u);
  for (const auto& trajectory : fixture["trajectories"]) replay(trajectory);
}

TEST(GradScaler, DefaultsMatchPyTorch) {
  const tb::GradScalerOptions options;
  EXPECT_EQ(options.init_scale(), 65536.0);
  EXPECT_EQ(options.growth_factor(), 2.0);
  EXPECT_EQ(options.backoff_factor(), 0.5);
  EXPECT_EQ(options.growth_interval(), 2000);
  EXPECT_TRUE(options.enabled());
  tb::GradScaler scaler(c10::Device(c10::kCPU));
  EXPECT_TRUE(scaler.enabled());
  EXPECT_EQ(scaler.scale_value(), 65536.0);
  EXPECT_EQ(scaler.skipped_steps(), 0);
}

TEST(GradScaler, RejectsFactorsPyTorchRejects) {
  EXPECT_THROW(tb::GradScaler(c10::Device(c10::kCPU), tb::GradScalerOptions().growth_factor(1.0)),
               std::invalid_argument);
  EXPECT_THROW(tb::GradScaler(c10::Device(c10::kCPU), tb::GradScalerOptions().backoff_factor(1.0)),
               std::invalid_argument);
  // A disabled scaler does not validate, like PyTorch.
  EXPECT_NO_THROW(tb::GradScaler(c10::Device(c10::kCPU), tb::GradScalerOptions().enabled(false).growth_factor(0.5)));
}

TEST(GradScaler, DisabledIsPassThrough) {
  at::Tensor w = at::ones({3}).set_requires_grad(true);
  torch::optim::SGD optimizer({w}, torch::optim::SGDOptions(1.0));
  tb::GradScaler scaler(c10::Device(c10::kCPU), tb::GradScalerOptions().enabled(false));
  EXPECT_FALSE(scaler.enabled());

  const at::Tensor loss = at::full({}, 2.5);
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));
  EXPECT_EQ(scaler.scale_value(), 1.0);

  // Even an inf gradient goes straight to the optimizer: no checks, no unscaling.
  w.mutable_grad() = at::tensor({1.0f, 2.0f, std::numeric_limits<float>::infinity()});
  scaler.unscale_(optimizer);
  EXPECT_EQ(w.grad()[1].item<float>(), 2.0f);
  EXPECT_TRUE(scaler.step(optimizer));
  scaler.update();
  EXPECT_EQ(w.detach()[0].item<float>(), 0.0f);
  EXPECT_EQ(scaler.skipped_steps(), 0);
}

TEST(GradScaler, UnscaleDividesGradientsByTheScale) {
  at::Tensor w = at::zeros({2}).set_requires_grad(true);
  torch::optim::SGD optimizer({w}, torch::optim::SGDOptions(1.0));
  tb::GradScaler scaler(c10::Device(c10::kCPU), tb::GradScalerOptions().init_scale(8.0));
  const at::Tensor scaled = scaler.scale(at::tensor({1.5f, -2.0f}));
  EXPECT_EQ(scaled[0].item<float>(), 12.0f);
  w.mutable_grad() = scaled;
  scaler.unscale_(optimizer);
  EXPECT_EQ(w.grad()[0].item<float>(), 1.5f);
  EXPECT_EQ(w.grad()[1].item<float>(), -2.0f);
  EXPECT_TRUE(scaler.step(optimizer));
  EXPECT_EQ(w.detach()[0].item<float>(), -1.5f);
}

TEST(GradScaler, StageGuardsMatchPyTorch) {
  at::Tensor w = at::zeros({2}).set_requires_grad(true);
  torch::optim::SGD optimizer({w}, torch::optim::SGDOptions(0.1));
  tb::GradScaler scaler(c10::Device(c10::kCPU));

  EXPECT_THROW(scaler.update(), std::logic_error);  // no inf checks recorded yet

  w.mutable_grad() = scaler.scale(at::ones({2}));
  scaler.unscale_(optimizer);
  EXPECT_THROW(scaler.unscale_(optimizer), std::logic_error);  // twice before update
  EXPECT_TRUE(scaler.step(optimizer));
  EXPECT_THROW(scaler.step(optimizer), std::logic_error);      // twice before update
  EXPECT_THROW(scaler.unscale_(optimizer), std::logic_error);  // after step
  scaler.update();

  // After update() the cycle starts again.
  w.mutable_grad() = scaler.scale(at::ones({2}));
  EXPECT_NO_THROW(scaler.unscale_(optimizer));
  EXPECT_TRUE(scaler.step(optimizer));
  scaler.update();
}

TEST(GradScaler, RejectsFp16Gradients) {
  at::Tensor w = at::zeros({2}, at::kHalf).set_requires_grad(true);
  torch::optim::SGD optimizer({w}, torch::optim::SGDOptions(0.1));
  tb::GradScaler scaler(c10::Device(c10::kCPU));
  w.mutable_grad() = at::ones({2}, at::kHalf);
  EXPECT_THROW(scaler.unscale_(optimizer), std::logic_error);
}

TEST(GradScaler, InfInAnyOptimizerBacksOffOnce) {
  at::Tensor a = at::zeros({2}).set_requires_grad(true);
  at::Tensor b = at::zeros({2}).set_requires_grad(true);
  torch::optim::SGD opt_a({a}, torch::optim::SGDOptions(1.0));
  torch::optim::SGD opt_b({b}, torch::optim::SGDOptions(1.0));
  tb::GradScaler scaler(c10::Device(c10::kCPU), tb::GradScalerOptions().init_scale(4.0));
  a.mutable_grad() = scaler.scale(at::ones({2}));
  b.mutable_grad() = scaler.scale(at::tensor({1.0f, std::numeric_limits<float>::quiet_NaN()}));
  EXPECT_TRUE(scaler.step(opt_a));
  EXPECT_FALSE(scaler.step(opt_b));
  scaler.update();
  EXPECT_EQ(scaler.scale_value(), 2.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  EXPECT_EQ(a.detach()[0].item<float>(), -1.0f);
  EXPECT_EQ(b.detach()[0].item<float>(), 0.0f);
}

TEST(GradScaler, CudaStepWithInfIsSkipped) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const c10::Device cuda(c10::kCUDA, 0);
  at::Tensor w = at::zeros({4}, at::TensorOptions().device(cuda)).set_requires_grad(true);
  torch::optim::SGD optimizer({w}, torch::optim::SGDOptions(1.0));
  tb::GradScaler scaler(cuda, tb::GradScalerOptions().init_scale(16.0).growth_interval(1));

  w.mutable_grad() = scaler.scale(at::ones({4}, at::TensorOptions().device(cuda)));
  EXPECT_TRUE(scaler.step(optimizer));
  scaler.update();
  EXPECT_EQ(scaler.scale_value(), 32.0);  // growth after one clean step
  EXPECT_EQ(w.detach().cpu()[0].item<float>(), -1.0f);

  at::Tensor g = at::ones({4}, at::TensorOptions().device(cuda));
  g[2] = std::numeric_limits<float>::infinity();
  w.mutable_grad() = scaler.scale(g);
  EXPECT_FALSE(scaler.step(optimizer));
  scaler.update();
  EXPECT_EQ(scaler.scale_value(), 16.0);
  EXPECT_EQ(w.detach().cpu()[0].item<float>(), -1.0f);
}

}  // namespace
