// Precision support matrix, TF32 guard and autocast scope.
#include <trainbench/training/torch/precision.hpp>

#include <stdexcept>

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/nn/modules/linear.h>

namespace {

using tb::Precision;

TEST(CheckPrecision, CpuMatrix) {
  EXPECT_TRUE(tb::check_precision(Precision::fp32, tb::DeviceKind::cpu).supported);
  EXPECT_TRUE(tb::check_precision(Precision::amp_bf16, tb::DeviceKind::cpu).supported);

  const auto tf32 = tb::check_precision(Precision::tf32, tb::DeviceKind::cpu);
  EXPECT_FALSE(tf32.supported);
  EXPECT_NE(tf32.reason.find("TF32"), std::string::npos) << tf32.reason;

  const auto fp16 = tb::check_precision(Precision::amp_fp16, tb::DeviceKind::cpu);
  EXPECT_FALSE(fp16.supported);
  EXPECT_NE(fp16.reason.find("amp_bf16"), std::string::npos) << fp16.reason;
}

TEST(CheckPrecision, DeviceTypes) {
  EXPECT_EQ(tb::device_type_of(tb::DeviceKind::cpu), c10::DeviceType::CPU);
  EXPECT_EQ(tb::device_type_of(tb::DeviceKind::cuda), c10::DeviceType::CUDA);
}

TEST(CheckPrecision, CudaWithoutGpuIsUnsupported) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA device is present";
  for (auto p : {Precision::fp32, Precision::tf32, Precision::amp_fp16, Precision::amp_bf16}) {
    const auto s = tb::check_precision(p, tb::DeviceKind::cuda);
    EXPECT_FALSE(s.supported) << tb::to_string(p);
    EXPECT_NE(s.reason.find("CUDA"), std::string::npos) << s.reason;
  }
}

TEST(CheckPrecision, CudaMatrix) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_TRUE(tb::check_precision(Precision::fp32, tb::DeviceKind::cuda).supported);
  EXPECT_TRUE(tb::check_precision(Precision::tf32, tb::DeviceKind::cuda).supported);
  EXPECT_TRUE(tb::check_precision(Precision::amp_fp16, tb::DeviceKind::cuda).supported);
  const auto bf16 = tb::check_precision(Precision::amp_bf16, tb::DeviceKind::cuda);
  // Every GPU this project targets (sm_80+) has bf16; an older one must explain why not.
  if (!bf16.supported) { EXPECT_NE(bf16.reason.find("compute capability"), std::string::npos); }
}

TEST(Precision, OnlyFp16NeedsAGradScaler) {
  EXPECT_TRUE(tb::needs_grad_scaler(Precision::amp_fp16));
  EXPECT_FALSE(tb::needs_grad_scaler(Precision::amp_bf16));
  EXPECT_FALSE(tb::needs_grad_scaler(Precision::fp32));
  EXPECT_FALSE(tb::needs_grad_scaler(Precision::tf32));
  EXPECT_EQ(tb::autocast_dtype(Precision::amp_fp16), at::kHalf);
  EXPECT_EQ(tb::autocast_dtype(Precision::amp_bf16), at::kBFloat16);
  EXPECT_EQ(tb::autocast_dtype(Precision::fp32), at::kFloat);
}

TEST(PrecisionGuard, SetsAndRestoresTf32Flags) {
  auto& ctx = at::globalContext();
  const bool original_cublas = ctx.allowTF32CuBLAS();
  const bool original_cudnn = ctx.allowTF32CuDNN();

  ctx.setAllowTF32CuBLAS(false);
  ctx.setAllowTF32CuDNN(true);
  {
    tb::PrecisionGuard guard(Precision::tf32);
    EXPECT_TRUE(ctx.allowTF32CuBLAS());
    EXPECT_TRUE(ctx.allowTF32CuDNN());
  }
  EXPECT_FALSE(ctx.allowTF32CuBLAS());
  EXPECT_TRUE(ctx.allowTF32CuDNN());
  {
    tb::PrecisionGuard guard(Precision::fp32);  // explicitly IEEE, even though cuDNN allowed it
    EXPECT_FALSE(ctx.allowTF32CuBLAS());
    EXPECT_FALSE(ctx.allowTF32CuDNN());
  }
  EXPECT_FALSE(ctx.allowTF32CuBLAS());
  EXPECT_TRUE(ctx.allowTF32CuDNN());

  ctx.setAllowTF32CuBLAS(original_cublas);
  ctx.setAllowTF32CuDNN(original_cudnn);
}

TEST(AutocastScope, CpuBf16CastsLinearAndRestores) {
  torch::nn::Linear linear(4, 3);
  const at::Tensor x = at::randn({2, 4});
  const bool was_enabled = at::autocast::is_autocast_enabled(at::kCPU);
  const auto was_dtype = at::autocast::get_autocast_dtype(at::kCPU);
  ASSERT_FALSE(was_enabled);
  {
    tb::AutocastScope scope(Precision::amp_bf16, tb::DeviceKind::cpu);
    EXPECT_TRUE(scope.active());
    EXPECT_TRUE(at::autocast::is_autocast_enabled(at::kCPU));
    EXPECT_EQ(at::autocast::get_autocast_dtype(at::kCPU), at::kBFloat16);
    EXPECT_EQ(linear->forward(x).scalar_type(), at::kBFloat16);
  }
  EXPECT_EQ(at::autocast::is_autocast_enabled(at::kCPU), was_enabled);
  EXPECT_EQ(at::autocast::get_autocast_dtype(at::kCPU), was_dtype);
  EXPECT_EQ(linear->forward(x).scalar_type(), at::kFloat);
}

TEST(AutocastScope, Fp32AndTf32AreNoOps) {
  torch::nn::Linear linear(4, 3);
  for (auto p : {Precision::fp32, Precision::tf32}) {
    tb::AutocastScope scope(p, tb::DeviceKind::cpu);
    EXPECT_FALSE(scope.active());
    EXPECT_FALSE(at::autocast::is_autocast_enabled(at::kCPU));
    EXPECT_EQ(linear->forward(at::randn({2, 4})).scalar_type(), at::kFloat);
  }
}

TEST(AutocastScope, NestedScopesRestoreTheOuterState) {
  torch::nn::Linear linear(4, 3);
  const at::Tensor x = at::randn({2, 4});
  {
    tb::AutocastScope outer(Precision::amp_bf16, at::kCPU);
    {
      tb::AutocastScope inner(Precision::amp_bf16, at::kCPU);
      EXPECT_EQ(linear->forward(x).scalar_type(), at::kBFloat16);
    }
    // Still inside the outer scope: autocast stays on.
    EXPECT_TRUE(at::autocast::is_autocast_enabled(at::kCPU));
    EXPECT_EQ(linear->forward(x).scalar_type(), at::kBFloat16);
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(at::kCPU));
}

TEST(AutocastScope, CudaFp16CastsLinear) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  torch::nn::Linear linear(4, 3);
  linear->to(at::Device(at::kCUDA, 0));
  const at::Tensor x = at::randn({2, 4}, at::TensorOptions().device(at::kCUDA, 0));
  {
    tb::AutocastScope scope(Precision::amp_fp16, tb::DeviceKind::cuda);
    EXPECT_EQ(linear->forward(x).scalar_type(), at::kHalf);
    EXPECT_FALSE(at::autocast::is_autocast_enabled(at::kCPU)) << "only the CUDA autocast changes";
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(at::kCUDA));
  EXPECT_EQ(linear->forward(x).scalar_type(), at::kFloat);
}

}  // namespace
