// The Kineto pass on the CPU: a few training steps of a tiny Linear model under the pass, saved
// and parsed back; the trace must hold LibTorch operator events (aten::addmm / aten::mm),
// including ones run on a worker thread (profile_all_threads).
#include <trainbench/profiling/torch/kineto_pass.hpp>

#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/cuda.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".json")).string();
}

void train_steps(torch::nn::Linear& model, torch::optim::SGD& opt, int steps) {
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    auto loss = model(at::randn({8, 16})).pow(2).mean();
    loss.backward();
    opt.step();
  }
}

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(KinetoPass, CpuTraceHasOperatorEvents) {
  torch::nn::Linear model(16, 4);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  train_steps(model, opt, 1);  // warm up outside the window

  const std::string path = temp_path("tb_kineto");
  tb::KinetoPass pass;
  pass.start(/*cuda=*/false);
  EXPECT_TRUE(pass.running());
  train_steps(model, opt, 3);
  // A data-loader-like worker thread doing tensor work inside the window.
  // cumsum appears nowhere in the training step, so it can only come from the worker.
  std::thread worker([] { at::cumsum(at::randn({16}), 0); });
  worker.join();
  pass.stop_and_save(path);
  EXPECT_FALSE(pass.running());

  const auto trace = load(path);
  ASSERT_TRUE(trace.contains("traceEvents"));
  std::set<std::string> names;
  std::map<std::string, std::set<long long>> threads_of;
  bool has_shapes = false;
  for (const auto& e : trace["traceEvents"]) {
    if (!e.contains("name") || !e["name"].is_string()) continue;
    const std::string name = e["name"];
    names.insert(name);
    if (e.contains("tid") && e["tid"].is_number()) threads_of[name].insert(e["tid"].get<long long>());
    if (e.contains("args") && e["args"].contains("Input Dims")) has_shapes = true;
  }
  EXPECT_TRUE(names.count("aten::addmm") || names.count("aten::mm") || names.count("aten::linear"))
      << "no matmul operator in the Kineto trace";
  EXPECT_TRUE(names.count("aten::cumsum")) << "the worker thread's aten::cumsum was not captured";
  if (names.count("aten::cumsum") && names.count("aten::addmm")) {
    EXPECT_NE(threads_of["aten::cumsum"], threads_of["aten::addmm"]) << "worker events on the main thread?";
  }
  EXPECT_TRUE(has_shapes) << "record_shapes=true should add Input Dims";
  std::filesystem::remove(path);
}

TEST(KinetoPass, MisuseIsReported) {
  tb::KinetoPass pass;
  EXPECT_THROW(pass.stop_and_save(temp_path("tb_kineto_unused")), std::runtime_error);
  pass.start(false);
  tb::KinetoPass second;
  EXPECT_THROW(second.start(false), std::runtime_error);  // one profiler at a time
  // Destructor of `pass` stops the profiler without saving.
}

TEST(KinetoPass, CudaTraceHasKernels) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU: GPU part of the Kineto pass not tested";
  const std::string path = temp_path("tb_kineto_cuda");
  tb::KinetoPass pass;
  pass.start(/*cuda=*/true);
  auto a = at::randn({256, 256}, at::kCUDA);
  auto b = at::mm(a, a);
  b.sum().item<float>();
  pass.stop_and_save(path);
  const auto trace = load(path);
  int kernels = 0;
  for (const auto& e : trace["traceEvents"])
    if (e.contains("cat") && e["cat"] == "kernel") ++kernels;
  EXPECT_GT(kernels, 0);
  std::filesystem::remove(path);
}

}  // namespace
