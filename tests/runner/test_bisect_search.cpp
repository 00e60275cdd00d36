// The bisection's search alone, with a table for the judge: the planted commit is found in
// ceil(log2 n) questions wherever it is, skipped commits are searched around, a culprit hidden
// among skipped commits is reported as a range, and max_steps bounds the questions.
#include <trainbench/runner/bisect_search.hpp>

#include <stdexcept>

#include <gtest/gtest.h>

namespace tb {
namespace {

// Candidates from `first_bad` on are slower; those in `skips` cannot be judged.
std::function<BisectVerdict(std::size_t)> table(std::size_t first_bad, std::vector<std::size_t> skips = {}) {
  return [=](std::size_t i) {
    for (std::size_t s : skips)
      if (s == i) return BisectVerdict::skip;
    return i >= first_bad ? BisectVerdict::bad : BisectVerdict::good;
  };
}

TEST(BisectSearch, FindsEveryPlantedCommitInLogSteps) {
  for (std::size_t n : {1u, 2u, 3u, 7u, 8u, 60u}) {
    for (std::size_t planted = 0; planted < n; ++planted) {
      const auto outcome = bisect_search(n, table(planted), 100);
      ASSERT_TRUE(outcome.first_bad.has_value()) << n << " " << planted;
      EXPECT_EQ(*outcome.first_bad, planted) << n;
      EXPECT_LE(static_cast<int>(outcome.steps.size()), bisect_steps_needed(n)) << n << " " << planted;
      EXPECT_FALSE(outcome.out_of_steps);
    }
  }
  EXPECT_EQ(bisect_steps_needed(1), 0);
  EXPECT_EQ(bisect_steps_needed(8), 3);
  EXPECT_EQ(bisect_steps_needed(60), 6);
}

TEST(BisectSearch, SkippedCandidatesAreSearchedAround) {
  // 8 candidates, the culprit is 5; 3 (the first one asked) and 6 cannot be judged: the search
  // asks their neighbours instead and still names 5.
  const auto outcome = bisect_search(8, table(5, {3, 6}), 100);
  ASSERT_TRUE(outcome.first_bad.has_value());
  EXPECT_EQ(*outcome.first_bad, 5u);
  ASSERT_FALSE(outcome.steps.empty());
  EXPECT_EQ(outcome.steps.front().candidate, 3u);
  EXPECT_EQ(outcome.steps.front().verdict, BisectVerdict::skip);
  int asked_3 = 0;
  for (const auto& step : outcome.steps) asked_3 += step.candidate == 3;
  EXPECT_EQ(asked_3, 1) << "a skipped candidate is never asked again";
}

TEST(BisectSearch, ACulpritAmongSkippedCommitsIsARange) {
  // The culprit 4 and its neighbour 3 cannot be judged: it is one of 3, 4 or 5 (5 is bad).
  const auto outcome = bisect_search(8, table(4, {3, 4}), 100);
  EXPECT_FALSE(outcome.first_bad.has_value());
  EXPECT_EQ(outcome.range_begin, 3u);
  EXPECT_EQ(outcome.range_end, 5u);
}

TEST(BisectSearch, MaxStepsBoundsTheQuestions) {
  int asked = 0;
  const auto outcome = bisect_search(
      60,
      [&](std::size_t i) {
        ++asked;
        return table(37)(i);
      },
      2);
  EXPECT_EQ(asked, 2);
  EXPECT_TRUE(outcome.out_of_steps);
  EXPECT_FALSE(outcome.first_bad.has_value());
  EXPECT_LE(outcome.range_begin, 37u);
  EXPECT_GE(outcome.range_end, 37u);
  EXPECT_THROW(bisect_search(0, table(0), 5), std::invalid_argument);
  EXPECT_THROW(bisect_search(3, table(0), -1), std::invalid_argument);
}

}  // namespace
}  // namespace tb
