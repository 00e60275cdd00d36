// The measured matmul peak: a real, plausible rate on the CPU; the CUDA path where a GPU exists.
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <trainbench/capacity/torch/peak_flops.hpp>
#include <trainbench/capacity/utilization.hpp>
#include <trainbench/support/error.hpp>

namespace tb::capacity {
namespace {

// One intra-op thread for the CPU plausibility checks: on an oversubscribed test machine a
// multi-threaded GEMM stalls at its barriers whenever one thread is descheduled, and the measured
// (real, but meaningless) rate can drop below any fixed bound.
class SingleThread {
 public:
  SingleThread() : previous_(at::get_num_threads()) { at::set_num_threads(1); }
  ~SingleThread() { at::set_num_threads(previous_); }

 private:
  int previous_;
};

TEST(PeakFlops, CpuFp32IsPositiveAndPlausible) {
  const SingleThread one_thread;
  const PeakResult r = measure_matmul_peak(DeviceKind::cpu, Precision::fp32, 256, 0.2);
  EXPECT_EQ(r.n, 256);
  EXPECT_EQ(r.dtype, "float32");
  EXPECT_EQ(r.device, "cpu");
  EXPECT_GE(r.samples, 5);
  EXPECT_GE(r.matmuls_per_sample, 1);
  EXPECT_GT(r.median_s, 0);
  EXPECT_DOUBLE_EQ(r.flops_per_s, 2.0 * 256 * 256 * 256 / r.median_s);
  EXPECT_GT(r.flops_per_s, 1e9) << "under 1 GFLOP/s for a 256^3 fp32 matmul";
  EXPECT_LT(r.flops_per_s, 1e14) << "over 100 TFLOP/s on a CPU is not plausible";
  EXPECT_EQ(describe(r).rfind("matmul n=256 float32 on cpu (", 0), 0u) << describe(r);
  EXPECT_EQ(r.kernel, "matmul");
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("n"), 256);
}

// The sweep: every size measured with several timed blocks, the peak is the best size's median,
// and the spread of the blocks is stored. No speed targets: only internal consistency.
TEST(PeakFlops, SweepRecordsSpreadPerSize) {
  const SingleThread one_thread;
  PeakOptions options;
  options.sizes = {96, 160, 128};  // measured and reported smallest first
  options.budget_s = 0.15;
  options.min_repeats = 4;
  const PeakResult r = measure_matmul_peak(DeviceKind::cpu, Precision::amp_bf16, options);
  ASSERT_EQ(r.sizes.size(), 3u);
  double best = 0;
  for (std::size_t i = 0; i < r.sizes.size(); ++i) {
    const auto& s = r.sizes[i];
    EXPECT_EQ(s.n, (std::vector<int>{96, 128, 160}[i])) << "sizes are reported smallest first";
    EXPECT_GE(s.blocks, 4);
    EXPECT_GE(s.matmuls_per_block, 1);
    EXPECT_GT(s.min_flops_per_s, 0);
    EXPECT_LE(s.min_flops_per_s, s.median_flops_per_s);
    EXPECT_LE(s.median_flops_per_s, s.max_flops_per_s);
    best = std::max(best, s.median_flops_per_s);
  }
  EXPECT_DOUBLE_EQ(r.flops_per_s, best) << "the peak is the best size's median, not a lucky block";
  // An autocast Linear's forward and backward: 3 matmuls a call.
  EXPECT_EQ(r.kernel, "autocast linear");
  EXPECT_DOUBLE_EQ(r.flops_per_s, 6.0 * r.n * r.n * r.n / r.median_s);
  EXPECT_LE(r.min_flops_per_s, r.flops_per_s);
  EXPECT_GE(r.max_flops_per_s, r.flops_per_s);
  EXPECT_GE(r.rel_spread, 0);
  EXPECT_DOUBLE_EQ(r.rel_spread, (r.max_flops_per_s - r.min_flops_per_s) / r.flops_per_s);
  EXPECT_EQ(r.threads, 1);
  EXPECT_NE(describe(r).find("best median of n=96/128/160"), std::string::npos) << describe(r);
  EXPECT_EQ(describe(r).rfind("autocast linear n=", 0), 0u) << describe(r);
  EXPECT_TRUE(r.stopped.empty()) << r.stopped;

  const nlohmann::json j = r;
  for (const char* key : {"flops_per_s", "n", "median_s", "samples", "matmuls_per_sample", "threads", "min_flops_per_s",
                          "max_flops_per_s", "rel_spread", "sizes"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j.at("sizes").size(), 3u);
  EXPECT_EQ(j.at("sizes")[1].at("n"), 128);
  EXPECT_TRUE(j.at("sizes")[1].contains("median_flops_per_s"));
  EXPECT_EQ(j.at("sizes")[1].at("blocks"), r.sizes[1].blocks);
}

// A probe whose next size would overrun its bound stops there and says so; the sizes before it
// are measured as usual, with at least 3 blocks each.
TEST(PeakFlops, TimeBoundLeavesOutTheLargestSizesAndSaysSo) {
  const SingleThread one_thread;
  PeakOptions options;
  options.sizes = {1536, 32};
  options.budget_s = 0.3;
  options.min_repeats = 5;
  options.max_s = 0.05;  // an fp32 n=1536 matmul (7 GFLOP) takes far longer on one thread
  const PeakResult r = measure_matmul_peak(DeviceKind::cpu, Precision::fp32, options);
  ASSERT_EQ(r.sizes.size(), 1u);
  EXPECT_EQ(r.n, 32);
  EXPECT_GE(r.samples, 3);
  EXPECT_NE(r.stopped.find("n=1536 and larger left out"), std::string::npos) << r.stopped;
  EXPECT_NE(describe(r).find(r.stopped), std::string::npos) << describe(r);
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("stopped"), r.stopped);
  EXPECT_EQ(j.get<PeakResult>().stopped, r.stopped);
}

TEST(PeakFlops, BadOptionsAreRejected) {
  PeakOptions zero;
  zero.sizes = {64, 0};
  EXPECT_THROW(measure_matmul_peak(DeviceKind::cpu, Precision::fp32, zero), std::invalid_argument);
  PeakOptions negative_budget;
  negative_budget.sizes = {64};
  negative_budget.budget_s = -1;
  EXPECT_THROW(measure_matmul_peak(DeviceKind::cpu, Precision::fp32, negative_budget), std::invalid_argument);
}

TEST(PeakFlops, CpuBf16IsReal) {
  const SingleThread one_thread;
  const PeakResult r = measure_matmul_peak(DeviceKind::cpu, Precision::amp_bf16, 128, 0.1);
  EXPECT_EQ(r.dtype, "bfloat16");
  EXPECT_GT(r.flops_per_s, 1e7);
}

TEST(PeakFlops, MeasuredPeakFeedsMfu) {
  const PeakResult r = measure_matmul_peak(DeviceKind::cpu, Precision::fp32, 128, 0.05);
  const auto peak = choose_peak(r.flops_per_s, "cpu", Precision::fp32, describe(r));
  ASSERT_TRUE(peak);
  EXPECT_EQ(peak->source, "measured");
  EXPECT_DOUBLE_EQ(peak->flops_per_s, r.flops_per_s);
}

TEST(PeakFlops, UnavailableModesAreSkippedNotFaked) {
  EXPECT_THROW(measure_matmul_peak(DeviceKind::cpu, Precision::tf32, 64, 0.01), ScenarioSkipped);
  EXPECT_THROW(measure_matmul_peak(DeviceKind::cpu, Precision::fp32, -1, 0.01), std::invalid_argument);
  if (!torch::cuda::is_available()) {
    EXPECT_THROW(measure_matmul_peak(DeviceKind::cuda, Precision::fp32, 64, 0.01), ScenarioSkipped);
  }
}

TEST(PeakFlops, Tf32FlagIsRestored) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: TF32 exists only on CUDA";
  const bool before = at::globalContext().allowTF32CuBLAS();
  measure_matmul_peak(DeviceKind::cuda, Precision::tf32, 1024, 0.1);
  EXPECT_EQ(at::globalContext().allowTF32CuBLAS(), before);
}

TEST(PeakFlops, CudaPrecisionsOrderAsExpected) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto fp32 = measure_matmul_peak(DeviceKind::cuda, Precision::fp32, 4096, 0.3);
  const auto tf32 = measure_matmul_peak(DeviceKind::cuda, Precision::tf32, 4096, 0.3);
  const auto bf16 = measure_matmul_peak(DeviceKind::cuda, Precision::amp_bf16, 4096, 0.3);
  EXPECT_GT(fp32.flops_per_s, 1e12);
  // Tensor cores: TF32 beats IEEE fp32, 16-bit beats TF32.
  EXPECT_GT(tf32.flops_per_s, fp32.flops_per_s);
  EXPECT_GT(bf16.flops_per_s, tf32.flops_per_s);
}

}  // namespace
}  // namespace tb::capacity
