// FLOP counts against hand-computed values for small shapes.
#include <gtest/gtest.h>

#include <stdexcept>

#include <trainbench/capacity/flops.hpp>

namespace tb::capacity {
namespace {

TEST(Flops, LinearIsTwoInOutRows) {
  EXPECT_DOUBLE_EQ(forward_flops(LinearLayer{784, 256}), 2.0 * 784 * 256);  // 401408
  EXPECT_DOUBLE_EQ(forward_flops(LinearLayer{64, 128, 16}), 262144.0);      // 2*64*128*16
  EXPECT_DOUBLE_EQ(forward_flops(LinearLayer{3, 5, 0}), 0.0);
}

TEST(Flops, Conv2dCountsPerOutputPixel) {
  // 3->16 channels, 3x3 kernel, 32x32 output: 2*3*9*16*1024.
  EXPECT_DOUBLE_EQ(forward_flops(Conv2dLayer{3, 16, 3, 3, 32, 32}), 884736.0);
  // Grouped: 16->32, 4 groups, 3x3, 8x8: each output sees 4 input channels: 2*4*9*32*64.
  EXPECT_DOUBLE_EQ(forward_flops(Conv2dLayer{16, 32, 3, 3, 8, 8, 4}), 147456.0);
  // Depthwise: 8->8, 8 groups, 3x3, 4x4: 2*1*9*8*16.
  EXPECT_DOUBLE_EQ(forward_flops(Conv2dLayer{8, 8, 3, 3, 4, 4, 8}), 2304.0);
  // 1x1 conv equals a Linear applied to every pixel.
  EXPECT_DOUBLE_EQ(forward_flops(Conv2dLayer{32, 64, 1, 1, 7, 7}), forward_flops(LinearLayer{32, 64, 49}));
}

TEST(Flops, AttentionScoresAndWeightedSum) {
  // seq 4, d_model 8: QK^T = 2*4*4*8 = 256, AV = 256 -> 512, whatever the head count.
  EXPECT_DOUBLE_EQ(forward_flops(AttentionLayer{4, 8, 2}), 512.0);
  EXPECT_DOUBLE_EQ(forward_flops(AttentionLayer{4, 8, 1}), 512.0);
  EXPECT_DOUBLE_EQ(forward_flops(AttentionLayer{4, 8, 2, /*causal=*/true}), 256.0);
}

TEST(Flops, EmbeddingIsFree) { EXPECT_DOUBLE_EQ(forward_flops(EmbeddingLayer{50000, 512, 128}), 0.0); }

TEST(Flops, ModelBackwardIsTwiceForward) {
  // MLP 784 -> 256 -> 10.
  const FlopCount mlp = count_flops({LinearLayer{784, 256}, LinearLayer{256, 10}});
  EXPECT_DOUBLE_EQ(mlp.forward, 406528.0);
  EXPECT_DOUBLE_EQ(mlp.backward, 813056.0);
  EXPECT_DOUBLE_EQ(mlp.total(), 1219584.0);
}

TEST(Flops, TinyTransformerBlock) {
  // seq 16, d 32, 4 heads, MLP 4x, vocabulary 100 (tied-free head).
  const std::int64_t s = 16, d = 32, v = 100;
  const FlopCount block = count_flops({
      EmbeddingLayer{v, d, s}, LinearLayer{d, 3 * d, s},    // QKV
      AttentionLayer{s, d, 4, true}, LinearLayer{d, d, s},  // output projection
      LinearLayer{d, 4 * d, s},                             // MLP up
      LinearLayer{4 * d, d, s},                             // MLP down
      LinearLayer{d, v, s},                                 // LM head
  });
  const double linear = 2.0 * s * (d * 3 * d + d * d + d * 4 * d + 4 * d * d + d * v);
  const double attention = 2.0 * 2.0 * s * s * d / 2.0;
  EXPECT_DOUBLE_EQ(block.forward, linear + attention);
  EXPECT_DOUBLE_EQ(block.backward, 2 * (linear + attention));
}

TEST(Flops, EmptyModelAndAccumulation) {
  EXPECT_DOUBLE_EQ(count_flops({}).total(), 0.0);
  FlopCount sum = with_standard_backward(10);
  sum += with_standard_backward(5);
  EXPECT_DOUBLE_EQ(sum.forward, 15);
  EXPECT_DOUBLE_EQ(sum.backward, 30);
}

TEST(Flops, InvalidShapesThrow) {
  EXPECT_THROW(forward_flops(Conv2dLayer{6, 8, 3, 3, 4, 4, 4}), std::invalid_argument);
  EXPECT_THROW(forward_flops(Conv2dLayer{8, 8, 3, 3, 4, 4, 0}), std::invalid_argument);
  EXPECT_THROW(forward_flops(AttentionLayer{4, 10, 3}), std::invalid_argument);
  EXPECT_THROW(forward_flops(LinearLayer{-1, 4}), std::invalid_argument);
}

TEST(Flops, JsonRoundTrip) {
  const nlohmann::json j = FlopCount{1, 2};
  EXPECT_EQ(j.at("total").get<double>(), 3.0);
  const auto back = j.get<FlopCount>();
  EXPECT_DOUBLE_EQ(back.forward, 1);
  EXPECT_DOUBLE_EQ(back.backward, 2);
}

}  // namespace
}  // namespace tb::capacity
