// The data-parallel projection model (capacity/scaling_projection.hpp): nccl-tests' bandwidth
// formulas, the ring all-reduce cost, and the step model at 8, 64 and 512 ranks worked by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include <trainbench/capacity/scaling_projection.hpp>

namespace tb::capacity {
namespace {

TEST(ScalingProjection, BandwidthsFollowNcclTestsFormulas) {
  EXPECT_DOUBLE_EQ(algbw(1e8, 0.1), 1e9);
  EXPECT_EQ(algbw(1e8, 0), 0.0);
  // busbw = algbw * 2(n-1)/n: equal at 2 ranks, 1.5x at 4, towards 2x.
  EXPECT_DOUBLE_EQ(busbw_from_algbw(1e9, 2), 1e9);
  EXPECT_DOUBLE_EQ(busbw_from_algbw(1e9, 4), 1.5e9);
  EXPECT_EQ(busbw_from_algbw(1e9, 1), 0.0);
}

TEST(ScalingProjection, AlphaIsTheLatencyPerRingHop) {
  EXPECT_DOUBLE_EQ(ring_alpha(1e-4, 2), 5e-5);     // 2(n-1) = 2 hops
  EXPECT_DOUBLE_EQ(ring_alpha(1e-4, 5), 1.25e-5);  // 8 hops
  EXPECT_EQ(ring_alpha(1e-4, 1), 0.0);
}

TEST(ScalingProjection, RingAllReduceCost) {
  const CommModel comm{5e-5, 1e9};
  // 2(n-1) alpha + 2(n-1)/n bytes / busbw at 8 ranks: 14 * 5e-5 + 1.75 * 0.1.
  EXPECT_NEAR(ring_allreduce_s(comm, 8, 1e8), 7e-4 + 0.175, 1e-12);
  // At the measured size the bandwidth term is the measured all-reduce time (bytes / algbw).
  EXPECT_NEAR(ring_allreduce_s({0, busbw_from_algbw(algbw(1e8, 0.1), 2)}, 2, 1e8), 0.1, 1e-12);
  EXPECT_EQ(ring_allreduce_s(comm, 1, 1e8), 0.0);
  EXPECT_THROW(ring_allreduce_s({5e-5, 0}, 2, 1e8), std::invalid_argument);
}

TEST(ScalingProjection, EfficiencyIsPerRankThroughputOverTheReference) {
  EXPECT_DOUBLE_EQ(scaling_efficiency(512, 2, 320), 0.8);
  EXPECT_DOUBLE_EQ(scaling_efficiency(320, 1, 320), 1.0);
  EXPECT_THROW(scaling_efficiency(512, 2, 0), std::invalid_argument);
}

// Calibrated at 2 ranks: 0.2 s compute, 32 samples per rank, a 100 MB gradient, 0.05 s hidden
// by backward, alpha 50 us, 1 GB/s bus bandwidth.
StepModel weak_model() { return {false, 2, 64, 0.2, 1e8, 0.05, {5e-5, 1e9}}; }

TEST(ScalingProjection, WeakScalingAt8_64_512ByHand) {
  const StepModel m = weak_model();
  struct Case {
    int n;
    double allreduce_s;
  };
  for (const Case c : {Case{8, 14 * 5e-5 + 14.0 / 8 * 0.1},             // 0.1757
                       Case{64, 126 * 5e-5 + 126.0 / 64 * 0.1},         // 0.203175
                       Case{512, 1022 * 5e-5 + 1022.0 / 512 * 0.1}}) {  // 0.250709375
    const auto p = project_step(m, c.n);
    ASSERT_TRUE(p) << c.n;
    EXPECT_NEAR(p->allreduce_s, c.allreduce_s, 1e-12) << c.n;
    EXPECT_NEAR(p->exposed_comm_s, c.allreduce_s - 0.05, 1e-12) << c.n;
    EXPECT_DOUBLE_EQ(p->compute_s, 0.2) << c.n;  // fixed per-rank batch, fixed compute
    EXPECT_DOUBLE_EQ(p->global_batch, 32.0 * c.n) << c.n;
    EXPECT_NEAR(p->step_s, 0.2 + c.allreduce_s - 0.05, 1e-12) << c.n;
    EXPECT_NEAR(p->samples_per_s, 32.0 * c.n / p->step_s, 1e-9) << c.n;
  }
  EXPECT_NEAR(project_step(m, 512)->step_s, 0.400709375, 1e-12);
}

TEST(ScalingProjection, StrongScalingShrinksComputeWithThePerRankBatch) {
  StepModel m = weak_model();
  m.strong = true;
  const auto p8 = project_step(m, 8);
  ASSERT_TRUE(p8);
  EXPECT_DOUBLE_EQ(p8->compute_s, 0.2 * 2 / 8);
  EXPECT_DOUBLE_EQ(p8->global_batch, 64);
  EXPECT_NEAR(p8->step_s, 0.05 + 0.1757 - 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(project_step(m, 64)->compute_s, 0.2 * 2 / 64);
  EXPECT_FALSE(project_step(m, 512));  // 64 samples cannot feed 512 ranks
}

TEST(ScalingProjection, OverlapHidesCommunicationUpToItsCapacity) {
  StepModel m = weak_model();
  m.overlap_s = 1.0;  // backward hides more than the all-reduce takes
  const auto p = project_step(m, 8);
  EXPECT_EQ(p->exposed_comm_s, 0.0);
  EXPECT_DOUBLE_EQ(p->step_s, 0.2);
}

TEST(ScalingProjection, EfficiencyAgainstTheMeasuredReferenceOrTheModelsOwn) {
  const StepModel m = weak_model();
  const auto measured = project_scaling(m, {1, 8}, 200.0);
  ASSERT_EQ(measured.size(), 2u);
  EXPECT_DOUBLE_EQ(*measured[0].efficiency, 160.0 / 200.0);  // model at 1 rank: 32 / 0.2 s
  EXPECT_DOUBLE_EQ(*measured[1].efficiency, measured[1].samples_per_s / (8 * 200.0));
  const auto own = project_scaling(m, {1, 8}, std::nullopt);
  EXPECT_DOUBLE_EQ(*own[0].efficiency, 1.0);
  EXPECT_DOUBLE_EQ(*own[1].efficiency, own[1].samples_per_s / (8 * 160.0));
  StepModel strong = m;
  strong.strong = true;
  EXPECT_EQ(project_scaling(strong, {8, 64, 512}, 200.0).size(), 2u);  // 512 left out
}

TEST(ScalingProjection, SizesAreTheStandardOnesPlusTheMeasured) {
  EXPECT_EQ(projection_sizes({2, 1, 8}), (std::vector<int>{1, 2, 8, 64, 512}));
  EXPECT_EQ(projection_sizes({}), (std::vector<int>{8, 64, 512}));
}

TEST(ScalingProjection, RefusesAModelWithoutCompute) {
  StepModel m = weak_model();
  m.compute_s = 0;
  EXPECT_THROW(project_step(m, 8), std::invalid_argument);
}

}  // namespace
}  // namespace tb::capacity
