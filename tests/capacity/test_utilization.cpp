// MFU arithmetic, the datasheet fallback and the scenario capacity section.
#include <gtest/gtest.h>

#include <trainbench/capacity/utilization.hpp>
#include "tests/helpers/golden_file.hpp"

namespace tb::capacity {
namespace {

TEST(Utilization, AchievedAndMfu) {
  const FlopCount per_sample{1e9, 2e9};
  EXPECT_DOUBLE_EQ(achieved_flops_per_s(per_sample, 1000), 3e12);
  EXPECT_DOUBLE_EQ(mfu(3e12, 989e12), 3e12 / 989e12);
  EXPECT_DOUBLE_EQ(mfu(3e12, 0), 0);
}

TEST(Utilization, DatasheetFallbackIsLabelled) {
  const auto h200 = datasheet_peak_flops("NVIDIA H200", Precision::amp_bf16);
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(h200->flops_per_s, 989e12);
  EXPECT_EQ(h200->source, "table (fallback)");
  EXPECT_DOUBLE_EQ(datasheet_peak_flops("NVIDIA H100 80GB HBM3", Precision::tf32)->flops_per_s, 494e12);
  EXPECT_DOUBLE_EQ(datasheet_peak_flops("NVIDIA H100 80GB HBM3", Precision::fp32)->flops_per_s, 67e12);
  EXPECT_DOUBLE_EQ(datasheet_peak_flops("NVIDIA H100 PCIe", Precision::amp_fp16)->flops_per_s, 756e12);
  EXPECT_DOUBLE_EQ(datasheet_peak_flops("NVIDIA A100-SXM4-80GB", Precision::amp_fp16)->flops_per_s, 312e12);
  EXPECT_DOUBLE_EQ(datasheet_peak_flops("NVIDIA A100-SXM4-80GB", Precision::tf32)->flops_per_s, 156e12);
  EXPECT_DOUBLE_EQ(datasheet_peak_flops("NVIDIA A100-SXM4-80GB", Precision::fp32)->flops_per_s, 19.5e12);
  EXPECT_FALSE(datasheet_peak_flops("cpu", Precision::fp32));
  EXPECT_FALSE(datasheet_peak_flops("NVIDIA GeForce RTX 4090", Precision::amp_bf16));
}

TEST(Utilization, MeasuredPeakWinsOverTable) {
  const auto measured = choose_peak(700e12, "NVIDIA H200", Precision::amp_bf16, "matmul n=8192 bf16");
  ASSERT_TRUE(measured);
  EXPECT_EQ(measured->source, "measured");
  EXPECT_DOUBLE_EQ(measured->flops_per_s, 700e12);
  EXPECT_EQ(choose_peak(std::nullopt, "NVIDIA H200", Precision::amp_bf16)->source, "table (fallback)");
  EXPECT_EQ(choose_peak(0.0, "NVIDIA H200", Precision::amp_bf16)->source, "table (fallback)");
  EXPECT_FALSE(choose_peak(std::nullopt, "cpu", Precision::fp32));
}

TEST(Utilization, CapacityJsonWithoutPeakOmitsMfu) {
  const nlohmann::json j = capacity_section(FlopCount{10, 20}, 5, std::nullopt);
  EXPECT_DOUBLE_EQ(j.at("achieved_flops_per_s").get<double>(), 150);
  EXPECT_FALSE(j.contains("mfu"));
  EXPECT_FALSE(j.contains("projection"));
}

// An MFU above 100% is physically impossible: it is kept for diagnosis and flagged.
TEST(Utilization, CapacityJsonFlagsMfuAbove100Percent) {
  const FlopCount per_sample{1e9, 2e9};
  const nlohmann::json over = capacity_section(per_sample, 1000, PeakFlops{2.8e12, kPeakSourceMeasured, "matmul"});
  EXPECT_NEAR(over.at("mfu").get<double>(), 3e12 / 2.8e12, 1e-12);
  ASSERT_TRUE(over.contains("mfu_error"));
  EXPECT_EQ(over.at("mfu_error").get<std::string>().rfind("MFU 107.14% exceeds 100%", 0), 0u) << over.dump();
  EXPECT_EQ(over.at("mfu_error").get<std::string>(), mfu_error(3e12 / 2.8e12));
  EXPECT_FALSE(nlohmann::json(capacity_section(per_sample, 1000, PeakFlops{3e12, kPeakSourceMeasured, ""}))
                   .contains("mfu_error"))
      << "exactly 100% is the limit, not beyond it";
  EXPECT_FALSE(nlohmann::json(capacity_section(per_sample, 1000, PeakFlops{4e12, kPeakSourceMeasured, ""}))
                   .contains("mfu_error"));
  EXPECT_EQ(std::string(kMfuErrorCell), "error: >100% (peak under-measured)");
}

// Above the peak's median but not above its fastest block: the probe's own spread, no error; past
// the fastest block an error naming the caller's suspect.
TEST(Utilization, MfuWithinThePeaksSpreadIsNoError) {
  const FlopCount per_sample{1e9, 2e9};  // 3 TFLOP/s at 1000 samples/s
  PeakFlops peak{2.9e12, kPeakSourceMeasured, "autocast linear"};
  peak.fastest_flops_per_s = 3.2e12;
  const auto within = capacity_section(per_sample, 1000, peak, std::nullopt, "kernels differ");
  EXPECT_GT(within.mfu, 1.0);
  EXPECT_TRUE(within.mfu_error.empty()) << within.mfu_error;
  peak.fastest_flops_per_s = 2.95e12;
  const auto beyond = capacity_section(per_sample, 1000, peak, std::nullopt, "kernels differ");
  EXPECT_EQ(beyond.mfu_error, mfu_error(beyond.mfu, "kernels differ"));
  EXPECT_NE(beyond.mfu_error.find("a measurement error, not a utilisation; kernels differ"), std::string::npos)
      << beyond.mfu_error;
}

TEST(Utilization, CapacityJsonGolden) {
  Distribution step;
  step.median = 0.05;
  step.ci_low = 0.048;
  step.ci_high = 0.053;
  ProjectionOptions options;
  options.price_per_device_hour = 4.0;
  const auto projection = project(1e7, step, 256, options);
  const FlopCount per_sample = count_flops({LinearLayer{784, 256}, LinearLayer{256, 10}});
  const nlohmann::json j =
      capacity_section(per_sample, 256 / 0.05, PeakFlops{2e11, kPeakSourceMeasured, "matmul n=1024 fp32"}, projection);
  EXPECT_NEAR(j.at("mfu").get<double>(), per_sample.total() * 5120 / 2e11, 1e-12);
  EXPECT_EQ(j.at("projection").at("steps"), 39063);

  const std::string text = j.dump(2) + "\n";
  tb::test::expect_golden("capacity_extra.json", text);
}

}  // namespace
}  // namespace tb::capacity
