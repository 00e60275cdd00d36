#include <trainbench/measure/bottleneck.hpp>

#include <gtest/gtest.h>

namespace {

using namespace tb;

// Phase shares in canonical order: data_wait, h2d, forward, backward, optimizer, comm.
ScenarioResult with_shares(std::vector<double> shares, DeviceKind device = DeviceKind::cpu) {
  ScenarioResult s;
  s.params.device = device;
  const char* names[] = {"data_wait", "h2d", "forward", "backward", "optimizer", "comm"};
  for (std::size_t i = 0; i < shares.size(); ++i) s.phases.push_back({names[i], 0, 0, shares[i]});
  return s;
}

TEST(Bottleneck, ThresholdsInTheirDocumentedOrder) {
  EXPECT_EQ(bottleneck_of(with_shares({0.30, 0, 0.1, 0.2, 0.1, 0.30})).kind, Bottleneck::Kind::communication);
  const auto data = bottleneck_of(with_shares({0.74, 0.02, 0.05, 0.11, 0.08}));
  EXPECT_EQ(data.kind, Bottleneck::Kind::data);
  EXPECT_EQ(data.reason, "data wait 74% of the step");
  EXPECT_EQ(bottleneck_of(with_shares({0.10, 0.25, 0.2, 0.35, 0.1})).kind, Bottleneck::Kind::copy);
  // Just under every threshold: compute.
  const auto compute = bottleneck_of(with_shares({0.24, 0.19, 0.2, 0.27, 0.1}));
  EXPECT_EQ(compute.kind, Bottleneck::Kind::compute);
  EXPECT_EQ(compute.reason, "forward+backward+optimizer 57% of the step");
  EXPECT_STREQ(to_string(compute.kind), "compute-bound");
  EXPECT_FALSE(compute.gpu_idle_unknown);  // a CPU has no idle GPU to miss
}

TEST(Bottleneck, GpuIdleFromCuptiMeansLaunchBound) {
  auto s = with_shares({0.05, 0.02, 0.3, 0.5, 0.13}, DeviceKind::cuda);
  EXPECT_EQ(bottleneck_of(s).kind, Bottleneck::Kind::compute);
  EXPECT_TRUE(bottleneck_of(s).gpu_idle_unknown);
  s.profile = ProfileSection{};
  s.profile->cupti = {{"gpu_idle_share", 0.91}};
  const auto b = bottleneck_of(s);
  EXPECT_EQ(b.kind, Bottleneck::Kind::host_launch);
  EXPECT_EQ(b.reason, "GPU idle 91% of the profiled steps");
  s.profile->cupti = {{"gpu_idle_share", 0.2}};
  EXPECT_EQ(bottleneck_of(s).kind, Bottleneck::Kind::compute);
  EXPECT_FALSE(bottleneck_of(s).gpu_idle_unknown);
  EXPECT_NE(bottleneck_of(s).reason.find("GPU idle 20%"), std::string::npos);
  // Data wait comes first: a starved GPU is idle because of the loader.
  s.phases[0].share = 0.6;
  s.profile->cupti = {{"gpu_idle_share", 0.9}};
  EXPECT_EQ(bottleneck_of(s).kind, Bottleneck::Kind::data);
}

TEST(Bottleneck, NoPhasesNoVerdict) {
  EXPECT_EQ(bottleneck_of(ScenarioResult{}).kind, Bottleneck::Kind::none);
  EXPECT_STREQ(to_string(Bottleneck::Kind::none), "-");
}

}  // namespace
