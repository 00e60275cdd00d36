// "What was seen" 8: SGD at lr 1e8 (loss 2.31 -> 1.2e21 -> NaN) was reported ok.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <trainbench/measure/divergence.hpp>

namespace {

TEST(Divergence, HealthyCurveIsFine) {
  const std::vector<double> loss = {2.31, 2.1, 1.7, 1.2, 0.9};
  EXPECT_FALSE(tb::detect_divergence(loss).has_value());
  EXPECT_FALSE(tb::detect_divergence({}).has_value());
}

TEST(Divergence, NonFiniteLossDiverged) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> loss = {2.31, 1.2e21, nan, nan};
  const auto why = tb::detect_divergence(loss);
  ASSERT_TRUE(why.has_value());
  // The explosion comes before the NaN and is the first thing said.
  EXPECT_NE(why->find("exploded"), std::string::npos) << *why;
  const std::vector<double> inf_first = {std::numeric_limits<double>::infinity(), 1.0};
  ASSERT_TRUE(tb::detect_divergence(inf_first).has_value());
  EXPECT_NE(tb::detect_divergence(inf_first)->find("not finite"), std::string::npos);
}

TEST(Divergence, NanAfterFiniteSaysWhere) {
  const std::vector<double> loss = {2.3, 2.2, std::nan("")};
  const auto why = tb::detect_divergence(loss);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("step 2"), std::string::npos) << *why;
}

TEST(Divergence, ExplodingLossDiverged) {
  const std::vector<double> loss = {2.3, 5.0, 40.0, 300.0};
  ASSERT_TRUE(tb::detect_divergence(loss).has_value());
  const std::vector<double> rising_but_sane = {2.3, 5.0, 40.0, 200.0};  // < 100x
  EXPECT_FALSE(tb::detect_divergence(rising_but_sane).has_value());
}

}  // namespace
