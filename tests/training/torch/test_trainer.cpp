// The training step: gradient accumulation over k micro-batches equals one batch k times larger;
// the loss falls on every built-in model; the step reports phases that add up; a planted input
// delay lands in data_wait; channels_last and the foreach/fused optimizers train the same model
// to the same parameters as the defaults; the step dispatches no operator a bare loop does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <torch/utils.h>

#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/optimizer_factory.hpp>
#include <trainbench/training/torch/registry.hpp>
#include <trainbench/training/torch/trainer.hpp>

namespace tb {
namespace {

ScenarioParams mlp_params(int batch, int accumulation) {
  ScenarioParams p;
  p.model = "mlp";
  p.optimizer = tb::OptimizerKind::sgd;
  p.learning_rate = 0.1;
  p.momentum = 0.0;
  p.batch = batch;
  p.accumulation = accumulation;
  p.effective_batch = batch * accumulation;
  p.dataset_options = {{"samples", 64}, {"features", 16}, {"classes", 4}};
  p.model_options = {{"hidden", 32}, {"depth", 2}};
  return p;
}

// Parameters after one optimizer step, with the data order fixed by the seed.
std::vector<at::Tensor> params_after_one_step(const ScenarioParams& p, double* loss) {
  torch::manual_seed(7);
  auto source = Registry::instance().dataset("synthetic").factory({p.dataset_options, 1});
  auto model = Registry::instance().model("mlp").factory(p.model_options, source->info());
  torch::manual_seed(11);  // same sampler permutation for both runs
  BatchStream stream(source, p.batch, 0);
  Trainer trainer(p, *model, stream, c10::Device(c10::kCPU));
  StepSample s;
  trainer.step(s);
  *loss = s.loss;
  std::vector<at::Tensor> out;
  for (const auto& t : model->module().parameters()) out.push_back(t.detach().clone());
  return out;
}

TEST(Trainer, AccumulatedGradientsEqualOneLargeBatch) {
  double loss_big = 0, loss_acc = 0;
  const auto big = params_after_one_step(mlp_params(32, 1), &loss_big);
  const auto acc = params_after_one_step(mlp_params(8, 4), &loss_acc);
  ASSERT_EQ(big.size(), acc.size());
  for (std::size_t i = 0; i < big.size(); ++i)
    EXPECT_TRUE(at::allclose(big[i], acc[i], /*rtol=*/1e-5, /*atol=*/1e-6)) << "parameter " << i;
  EXPECT_NEAR(loss_big, loss_acc, 1e-5);
}

TEST(Trainer, AccumulationDiffersFromSingleMicroBatch) {
  // Guards the test above against passing trivially: a step on 8 samples moves differently.
  double a = 0, b = 0;
  const auto big = params_after_one_step(mlp_params(32, 1), &a);
  const auto small = params_after_one_step(mlp_params(8, 1), &b);
  bool any_diff = false;
  for (std::size_t i = 0; i < big.size(); ++i) any_diff |= !at::allclose(big[i], small[i], 1e-5, 1e-6);
  EXPECT_TRUE(any_diff);
}

// The planted slowdown (test_delay_ms) is a slow input pipeline: every micro-batch reaches the
// trainer that much later whatever the worker count, and the step charges it to data_wait.
TEST(Trainer, PlantedDelayIsChargedToDataWaitWithAnyWorkerCount) {
  constexpr double kDelayS = 0.05;
  for (const int workers : {0, 2}) {
    ScenarioParams p = mlp_params(8, 2);
    p.workers = workers;
    p.test_delay_ms = kDelayS * 1e3;
    auto source = Registry::instance().dataset("synthetic").factory({p.dataset_options, 1});
    auto model = Registry::instance().model("mlp").factory(p.model_options, source->info());
    BatchStream stream(source, p.batch, p.workers, p.test_delay_ms);
    Trainer trainer(p, *model, stream, c10::Device(c10::kCPU));
    StepSample s;
    trainer.step(s);
    // Phases do not overlap, so a delay inside data_wait is in no compute phase. (An upper bound
    // on forward would say the same but fails on a loaded machine.)
    EXPECT_GE(s.phase_s[static_cast<std::size_t>(Phase::data_wait)], p.accumulation * kDelayS) << workers << " workers";
  }
}

// dataset_options.placement "device" (compute only): the batches are taken from the loader once,
// when the trainer is made, and every step reuses them: a planted slow loader then costs the
// steps nothing (no data_wait, no h2d), and the model still trains (the loss falls).
TEST(Trainer, DeviceResidentBatchesAreMadeOnceAndReused) {
  constexpr double kDelayS = 0.05;
  ScenarioParams p = mlp_params(8, 2);
  p.test_delay_ms = kDelayS * 1e3;
  p.dataset_options["placement"] = "device";
  ASSERT_TRUE(device_resident_data(p));
  auto source = Registry::instance().dataset("synthetic").factory({p.dataset_options, 1});
  auto model = Registry::instance().model("mlp").factory(p.model_options, source->info());
  BatchStream stream(source, p.batch, p.workers, p.test_delay_ms);
  Trainer trainer(p, *model, stream, c10::Device(c10::kCPU));
  double first_loss = 0, last_loss = 0;
  for (int i = 0; i < 30; ++i) {
    StepSample s;
    trainer.step(s);
    EXPECT_EQ(s.phase_s[static_cast<std::size_t>(Phase::data_wait)], 0.0) << "step " << i;
    EXPECT_EQ(s.phase_s[static_cast<std::size_t>(Phase::h2d)], 0.0) << "step " << i;
    (i == 0 ? first_loss : last_loss) = s.loss;
  }
  // 60 micro-batches of 8 from 64 samples would be 8 epochs; the 4 resident batches are half of one.
  EXPECT_EQ(stream.epochs_started(), 1);
  EXPECT_LT(last_loss, first_loss) << "it trains on the resident batches";
}

// The torch operators one step dispatches on this thread, by name.
class OpCounter {
 public:
  OpCounter() {
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback([](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
          if (active_ != nullptr) ++(*active_)[fn.name()];
          return nullptr;
        }).needsInputs(false));
  }
  ~OpCounter() { at::removeCallback(handle_); }
  template <class F>
  std::map<std::string, int> count(F&& step) {
    std::map<std::string, int> ops;
    active_ = &ops;
    step();
    active_ = nullptr;
    return ops;
  }

 private:
  static inline thread_local std::map<std::string, int>* active_ = nullptr;
  at::CallbackHandle handle_;
};

// The harness's cost on the hot path, counted rather than timed (timing is the benchmark's
// job, bench_harness_overhead): against a bare loop of the same model, data and optimizer,
// Trainer::step dispatches no operator more, except a detach per micro-batch (the handle it
// keeps of each loss) and, at k > 1 on the CPU, the k - 1 further loss reads. In particular no
// kernel of its own: no zero_, no add_, no copy.
TEST(Trainer, StepDispatchesNoOperatorBeyondABareLoop) {
  for (const int k : {1, 4}) {
    const ScenarioParams p = mlp_params(8, k);
    torch::manual_seed(7);
    auto source = Registry::instance().dataset("synthetic").factory({p.dataset_options, 1});
    auto bare_model = Registry::instance().model("mlp").factory(p.model_options, source->info());
    auto harness_model = Registry::instance().model("mlp").factory(p.model_options, source->info());
    BatchStream bare_stream(source, p.batch, 0), harness_stream(source, p.batch, 0);
    auto optimizer = make_optimizer(p, bare_model->module().parameters());
    bare_model->module().train();
    torch::data::Example<> batch;
    const auto bare_step = [&] {
      at::Tensor loss;
      for (int micro = 0; micro < k; ++micro) {
        bare_stream.next(batch);
        loss = bare_model->loss(bare_model->forward(batch.data), batch.target);
        if (k > 1) loss = loss * (1.0 / k);
        loss.backward();
      }
      optimizer->step();
      optimizer->zero_grad();
      return loss.item<double>();
    };
    Trainer trainer(p, *harness_model, harness_stream, c10::Device(c10::kCPU));
    StepSample s;
    for (int i = 0; i < 2; ++i) {  // past the first step's lazily made state
      bare_step();
      trainer.step(s);
    }
    OpCounter counter;
    const auto bare = counter.count(bare_step);
    const auto harness = counter.count([&] { trainer.step(s); });
    ASSERT_FALSE(bare.empty()) << "the counter saw no operator: record functions are off";
    const std::map<std::string, int> allowed = {
        {"aten::detach", k}, {"detach", k}, {"aten::item", k - 1}, {"aten::_local_scalar_dense", k - 1}};
    for (const auto& [name, count] : harness) {
      const int in_bare = bare.count(name) != 0U ? bare.at(name) : 0;
      const int extra = allowed.count(name) != 0U ? allowed.at(name) : 0;
      EXPECT_LE(count, in_bare + extra) << name << " at accumulation " << k;
    }
  }
}

// A small ResNet's parameters after `steps` steps of `p` (images from the synthetic set).
std::vector<at::Tensor> resnet_after(ScenarioParams p, int steps, bool* conv_weights_channels_last = nullptr,
                                     int width = 4) {
  p.model = "resnet";
  p.batch = 4;
  p.effective_batch = 4;
  p.dataset_options = {{"samples", 16}, {"shape", {3, 16, 16}}, {"classes", 4}};
  torch::manual_seed(5);
  auto source = Registry::instance().dataset("synthetic").factory({p.dataset_options, 1});
  auto model = Registry::instance().model("resnet").factory({{"width", width}}, source->info());
  torch::manual_seed(9);
  BatchStream stream(source, p.batch, 0);
  Trainer trainer(p, *model, stream, c10::Device(c10::kCPU));
  if (conv_weights_channels_last != nullptr) {
    *conv_weights_channels_last = true;
    for (const auto& t : model->module().parameters())
      if (t.dim() == 4)  // a 1x1 kernel is both layouts at once; a 3x3 one only NHWC once converted
        *conv_weights_channels_last &=
            t.is_contiguous(at::MemoryFormat::ChannelsLast) && (t.size(2) == 1 || !t.is_contiguous());
  }
  StepSample s;
  for (int i = 0; i < steps; ++i) trainer.step(s);
  std::vector<at::Tensor> out;
  for (const auto& t : model->module().parameters()) out.push_back(t.detach().contiguous().clone());
  return out;
}

void expect_close(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b, double rtol, double atol) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(at::allclose(a[i], b[i], rtol, atol))
        << "parameter " << i << " " << a[i].sizes() << ": max difference " << (a[i] - b[i]).abs().max().item<double>()
        << " of " << b[i].abs().max().item<double>();
}

TEST(Trainer, ChannelsLastConvertsTheWeightsAndTrainsTheSame) {
  ScenarioParams contiguous;
  contiguous.optimizer = tb::OptimizerKind::sgd;
  contiguous.learning_rate = 0.05;
  ScenarioParams nhwc = contiguous;
  nhwc.memory_format = tb::MemoryFormatKind::channels_last;
  bool converted = false;
  // One step: both start from the same weights, so the update differs only by the order in which
  // other kernels sum (float32: a few ulps of each gradient) on any CPU class; more steps would
  // compound that through the model's nonlinearities, by an amount no dtype states. Width 8: with 4 channels LibTorch 2.11's
  // AVX2 oneDNN kernel computes the 1x1 shortcut's weight gradient wrong (52% off, or corrupts
  // the heap on one thread: tests/repro/onednn_channels_last_1x1_conv.py), a LibTorch bug this
  // test would otherwise report as trainbench's.
  const auto expected = resnet_after(contiguous, 1, nullptr, 8);
  const auto actual = resnet_after(nhwc, 1, &converted, 8);
  EXPECT_TRUE(converted);
  expect_close(actual, expected, 1e-5, 1e-6);
}

TEST(Trainer, ForeachAndFusedOptimizersTrainTheSame) {
  ScenarioParams loop;
  loop.optimizer = tb::OptimizerKind::adamw;
  loop.weight_decay = 0.01;
  loop.learning_rate = 1e-2;
  const auto expected = resnet_after(loop, 3);
  for (const OptimizerImpl impl : {OptimizerImpl::foreach, OptimizerImpl::fused}) {
    SCOPED_TRACE(to_string(impl));
    ScenarioParams p = loop;
    p.optimizer_impl = impl;
    expect_close(resnet_after(p, 3), expected, 1e-5, 1e-6);
  }
}

struct ModelCase {
  const char* model;
  nlohmann::json dataset_options;
  nlohmann::json model_options;
};

void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.model; }

class EveryModel : public ::testing::TestWithParam<ModelCase> {};

TEST_P(EveryModel, LossFallsAndPhasesAddUp) {
  const auto& c = GetParam();
  ScenarioParams p;
  p.model = c.model;
  p.batch = 16;
  p.learning_rate = 3e-3;
  p.dataset_options = c.dataset_options;
  p.model_options = c.model_options;
  torch::manual_seed(3);
  const auto& entry = Registry::instance().model(p.model);
  nlohmann::json options = entry.default_dataset_options;
  options.merge_patch(p.dataset_options);
  auto source = Registry::instance().dataset(entry.default_dataset).factory({options, 3});
  auto model = entry.factory(p.model_options, source->info());
  BatchStream stream(source, p.batch, 1);
  Trainer trainer(p, *model, stream, c10::Device(c10::kCPU));
  StepSample s;
  std::vector<double> losses, coverage;
  for (int i = 0; i < 25; ++i) {
    trainer.step(s);
    losses.push_back(s.loss);
    double sum = 0;
    for (double v : s.phase_s) sum += v;
    EXPECT_LE(sum, s.step_s * 1.001 + 1e-6);  // phases never overlap: true of every step
    coverage.push_back(sum / s.step_s);
  }
  // The phases cover the step: judged on the median step, since one step preempted between two
  // phases (a loaded CI machine: 87% once) says nothing about what the phases leave out.
  std::nth_element(coverage.begin(), coverage.begin() + 12, coverage.end());
  EXPECT_GE(coverage[12], 0.9) << c.model << ": the median step's phases cover too little of it";
  const double first = (losses[0] + losses[1] + losses[2]) / 3;
  const double last = (losses[22] + losses[23] + losses[24]) / 3;
  EXPECT_LT(last, first) << c.model << ": loss did not fall";
  EXPECT_FALSE(model->layers_per_sample().empty());
}

INSTANTIATE_TEST_SUITE_P(
    BuiltIn, EveryModel,
    ::testing::Values(ModelCase{"mlp", {{"samples", 256}, {"features", 32}}, {{"hidden", 64}}},
                      ModelCase{"resnet", {{"samples", 64}, {"image_size", 32}, {"stored_size", 40}}, {{"width", 8}}},
                      ModelCase{"transformer",
                                {{"samples", 256}, {"seq_len", 16}, {"vocab", 32}},
                                {{"d_model", 32}, {"heads", 2}, {"layers", 1}}}),
    [](const auto& info) { return std::string(info.param.model); });

}  // namespace
}  // namespace tb
