// The linear memory model recovers the synthetic device and predicts the searched max batch.
#include <gtest/gtest.h>

#include <trainbench/capacity/batch_search.hpp>
#include <trainbench/capacity/memory_fit.hpp>

namespace tb::capacity {
namespace {

constexpr std::int64_t kFixed = 50'000'000, kPerSample = 3'000'000;

Probe synthetic_probe(int b, std::int64_t budget) {
  const std::int64_t peak = kFixed + kPerSample * b;
  return Probe{b, peak <= budget, 100.0 * b, peak, ""};
}

TEST(MemoryFit, PredictsTheSearchedMaxBatch) {
  const std::int64_t budget = kFixed + kPerSample * 123 + 5;
  const auto search = search_batch([&](int b) { return synthetic_probe(b, budget); });
  ASSERT_EQ(search.max_batch, 123);
  std::string why;
  const auto fit = fit_memory(search.probes, &why);
  ASSERT_TRUE(fit) << why;
  EXPECT_NEAR(fit->fixed_bytes, kFixed, 1e-3 * kFixed);
  EXPECT_NEAR(fit->per_sample_bytes, kPerSample, 1e-6 * kPerSample);
  EXPECT_NEAR(fit->r2, 1.0, 1e-12);
  EXPECT_EQ(predict_max_batch(*fit, budget), search.max_batch);
  // And for a device twice as large, without probing it.
  EXPECT_EQ(predict_max_batch(*fit, 2 * budget), (2 * budget - kFixed) / kPerSample);
}

TEST(MemoryFit, ExactBoundary) {
  const MemoryFit fit{1000, 100, 1, 2};
  EXPECT_EQ(predict_max_batch(fit, 4700), 37);
  EXPECT_EQ(predict_max_batch(fit, 4699), 36);
  EXPECT_EQ(predict_max_batch(fit, 1099), 0);
  EXPECT_EQ(predict_max_batch(fit, 500), 0);
  EXPECT_DOUBLE_EQ(predict_peak_bytes(fit, 37), 4700);
}

TEST(MemoryFit, NoisyPointsHaveHighButImperfectR2) {
  const std::vector<std::pair<int, std::int64_t>> points = {
      {1, 1100 + 3}, {2, 1200 - 4}, {4, 1400 + 2}, {8, 1800 - 1}, {16, 2600 + 5}};
  const auto fit = fit_memory(points);
  ASSERT_TRUE(fit);
  EXPECT_LT(fit->r2, 1.0);
  EXPECT_GT(fit->r2, 0.999);
  EXPECT_NEAR(fit->per_sample_bytes, 100, 1);
  EXPECT_EQ(fit->points, 5);
}

TEST(MemoryFit, DegenerateInputIsRejectedWithAReason) {
  std::string why;
  EXPECT_FALSE(fit_memory(std::vector<std::pair<int, std::int64_t>>{{4, 1000}}, &why));
  EXPECT_NE(why.find("two"), std::string::npos);
  why.clear();
  EXPECT_FALSE(fit_memory(std::vector<std::pair<int, std::int64_t>>{{4, 1000}, {4, 1100}}, &why));
  EXPECT_NE(why.find("different batch"), std::string::npos);
  EXPECT_FALSE(fit_memory(std::vector<std::pair<int, std::int64_t>>{}));
  // Failed probes and probes without a peak are not fit input.
  const std::vector<Probe> probes = {{1, true, 1, 1100, ""}, {2, false, 0, 1200, ""}, {4, true, 1, 0, ""}};
  EXPECT_FALSE(fit_memory(probes, &why));
}

TEST(MemoryFit, FlatProfileGivesNoPrediction) {
  const auto fit = fit_memory(std::vector<std::pair<int, std::int64_t>>{{1, 1000}, {8, 1000}});
  ASSERT_TRUE(fit);
  EXPECT_DOUBLE_EQ(fit->per_sample_bytes, 0);
  EXPECT_DOUBLE_EQ(fit->r2, 1.0);
  EXPECT_EQ(predict_max_batch(*fit, 1 << 30), -1);
}

TEST(MemoryFit, Json) {
  const MemoryFit fit{1000, 100, 0.99, 4};
  const nlohmann::json j = memory_fit_entry("cnn", "amp_bf16", fit, 4700);
  EXPECT_EQ(j.at("model"), "cnn");
  EXPECT_EQ(j.at("precision"), "amp_bf16");
  EXPECT_EQ(j.at("predicted_max_batch"), 37);
  EXPECT_DOUBLE_EQ(j.at("r2").get<double>(), 0.99);
  EXPECT_DOUBLE_EQ(j.at("fixed_bytes").get<double>(), 1000);
}

}  // namespace
}  // namespace tb::capacity
