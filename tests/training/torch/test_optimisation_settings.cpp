// Where each optimisation setting can run (optimisation_settings.hpp): the CUDA-only ones are
// refused on the CPU with their reason, channels_last on a model with nothing 4-d, cuda_graphs
// where the step cannot be captured; and the cuDNN switch is restored after a scenario.
#include <gtest/gtest.h>

#include <string>

#include <ATen/Context.h>

#include <trainbench/training/torch/optimisation_settings.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

struct Built {
  std::shared_ptr<SampleSource> source;
  std::unique_ptr<TrainableModel> model;
};

Built build(const std::string& model, const std::string& dataset, const nlohmann::json& dataset_options) {
  Built b;
  b.source = Registry::instance().dataset(dataset).factory({dataset_options, 1});
  b.model = Registry::instance().model(model).factory(nlohmann::json::object(), b.source->info());
  return b;
}

std::string reason(const ScenarioParams& p, Built& b) {
  return optimisation_unsupported_reason(p, b.model->module(), b.source->info());
}

TEST(OptimisationSettings, DefaultsRunEverywhere) {
  auto mlp = build("mlp", "synthetic", {{"samples", 8}, {"features", 4}});
  ScenarioParams p;
  EXPECT_EQ(reason(p, mlp), "");
  p.optimizer_impl = tb::OptimizerImpl::fused;  // fused Adam has a CPU kernel
  EXPECT_EQ(reason(p, mlp), "");
}

TEST(OptimisationSettings, CudaOnlyValuesAreRefusedOnTheCpuWithTheirReason) {
  auto cnn = build("resnet", "synthetic", {{"samples", 8}, {"shape", {3, 8, 8}}});
  const struct {
    void (*set)(ScenarioParams&);
    const char* starts;
  } kCudaOnly[] = {
      {[](ScenarioParams& p) { p.pin_memory = true; }, "pin_memory: "},
      {[](ScenarioParams& p) { p.cudnn_benchmark = true; }, "cudnn_benchmark: "},
      {[](ScenarioParams& p) { p.cuda_graphs = true; }, "cuda_graphs: CUDA graphs need a CUDA device"},
  };
  for (const auto& c : kCudaOnly) {
    ScenarioParams p;
    p.device = tb::DeviceKind::cpu;
    c.set(p);
    EXPECT_EQ(reason(p, cnn).rfind(c.starts, 0), 0u) << reason(p, cnn);
  }
}

TEST(OptimisationSettings, CudaGraphsRefuseWhatCannotBeCaptured) {
  // Checked without a GPU: the device test comes first, so ask as if on CUDA.
  auto cnn = build("resnet", "synthetic", {{"samples", 8}, {"shape", {3, 8, 8}}});
  ScenarioParams p;
  p.device = tb::DeviceKind::cuda;
  p.cuda_graphs = true;
  p.optimizer = tb::OptimizerKind::sgd;
  EXPECT_EQ(reason(p, cnn), "");
  p.precision = Precision::amp_fp16;
  EXPECT_NE(reason(p, cnn).find("gradient scaler"), std::string::npos) << reason(p, cnn);
  p.precision = Precision::amp_bf16;
  p.world_size = 2;
  EXPECT_NE(reason(p, cnn).find("reducer"), std::string::npos) << reason(p, cnn);
  p.world_size = 1;
  p.optimizer = tb::OptimizerKind::adam;
  EXPECT_NE(reason(p, cnn).find("optimizer_impl \"fused\""), std::string::npos) << reason(p, cnn);
  p.optimizer_impl = tb::OptimizerImpl::fused;
  EXPECT_EQ(reason(p, cnn), "");
}

TEST(OptimisationSettings, ChannelsLastNeedsConvolutionWeights) {
  auto mlp = build("mlp", "synthetic", {{"samples", 8}, {"features", 4}});
  auto cnn = build("resnet", "synthetic", {{"samples", 8}, {"shape", {3, 8, 8}}});
  ScenarioParams p;
  p.memory_format = tb::MemoryFormatKind::channels_last;
  p.model = "mlp";
  EXPECT_EQ(reason(p, mlp),
            "memory_format channels_last: model 'mlp' has no 4-d (convolution) weights and no "
            "image inputs, so nothing would change");
  p.model = "resnet";
  EXPECT_EQ(reason(p, cnn), "");
}

TEST(CudnnBenchmarkGuard, RestoresTheSetting) {
  const bool before = at::globalContext().benchmarkCuDNN();
  {
    const CudnnBenchmarkGuard on(!before);
    EXPECT_EQ(at::globalContext().benchmarkCuDNN(), !before);
  }
  EXPECT_EQ(at::globalContext().benchmarkCuDNN(), before);
}

}  // namespace
}  // namespace tb
