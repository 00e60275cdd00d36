// Run ids: millisecond time, process id and a salt, so runs started in the same second (or by
// containers with the same pid) never share a results folder or a history row.
#include <trainbench/runner/run_id.hpp>

#include <unistd.h>

#include <algorithm>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono;

system_clock::time_point at(std::int64_t ms_since_epoch) {
  return system_clock::time_point(milliseconds(ms_since_epoch));
}

constexpr std::int64_t k20261203_071500 = 1796282100000;  // 2026-12-03T07:15:00Z in ms

TEST(RunId, FormatTable) {
  struct Case {
    const char* matrix;
    std::int64_t offset_ms;
    long pid;
    std::uint16_t salt;
    const char* expected;
  } cases[] = {
      {"quick", 123, 4242, 0x9f3a, "20261203-071500.123-p4242-9f3a-quick"},
      {"quick", 0, 1, 0, "20261203-071500.000-p1-0000-quick"},
      {"my matrix/v2", 999, 77, 0xffff, "20261203-071500.999-p77-ffff-my_matrix_v2"},
      {"quick", 61'001, 4242, 1, "20261203-071601.001-p4242-0001-quick"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(tb::make_run_id(c.matrix, at(k20261203_071500 + c.offset_ms), c.pid, c.salt), c.expected);
}

TEST(RunId, SameSecondDiffersByMillisecondPidOrSalt) {
  const auto t = at(k20261203_071500);
  const std::set<std::string> ids = {
      tb::make_run_id("quick", t, 100, 1),
      tb::make_run_id("quick", t + milliseconds(1), 100, 1),
      tb::make_run_id("quick", t, 101, 1),
      tb::make_run_id("quick", t, 100, 2),
  };
  EXPECT_EQ(ids.size(), 4u);
}

TEST(RunId, CallsInOneProcessNeverRepeat) {
  tb::MatrixSpec spec;
  spec.name = "quick";
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(tb::make_run_id(spec));
  EXPECT_EQ(ids.size(), 1000u);
  EXPECT_NE(ids.begin()->find("-p" + std::to_string(getpid()) + "-"), std::string::npos) << *ids.begin();
}

TEST(RunId, SortsByStartTimeAsText) {
  std::vector<std::string> ids;
  for (const std::int64_t ms : {0, 5, 999, 1000, 60'000, 86'400'000})
    ids.push_back(tb::make_run_id("quick", at(k20261203_071500 + ms), 99999, 0xffff));
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
}

}  // namespace
