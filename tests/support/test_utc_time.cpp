// The one UTC formatter: both forms of a known instant, and now in the ISO form.
#include <trainbench/support/utc_time.hpp>

#include <regex>

#include <gtest/gtest.h>

namespace {

TEST(UtcTime, BothFormsOfAKnownInstant) {
  // 2026-12-07 18:58:09 UTC, and 750 ms more (the seconds are kept, not rounded).
  const auto when =
      std::chrono::system_clock::time_point(std::chrono::seconds(1796669889)) + std::chrono::milliseconds(750);
  EXPECT_EQ(tb::format_utc(when, tb::UtcForm::iso8601), "2026-12-07T18:58:09Z");
  EXPECT_EQ(tb::format_utc(when, tb::UtcForm::compact), "20261207-185809");
  EXPECT_TRUE(std::regex_match(tb::utc_now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << tb::utc_now();
}

}  // namespace
