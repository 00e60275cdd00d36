// Batch search against a synthetic device: peak = fixed + per_sample * batch, fits iff the peak
// is within the budget; throughput rises with the batch and then falls (memory pressure).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include <trainbench/capacity/batch_search.hpp>
#include <trainbench/runner/interrupt.hpp>

namespace tb::capacity {
namespace {

struct SyntheticDevice {
  std::int64_t fixed = 1000;
  std::int64_t per_sample = 100;
  std::int64_t budget = 1000 + 100 * 37;  // the largest fitting batch is 37
  bool throw_on_oom = false;
  int calls = 0;

  std::int64_t peak(int b) const { return fixed + per_sample * b; }
  // Peaks near b = sqrt(0.01 / 5e-5) ~ 14.
  static double samples_per_s(int b) { return b / (0.01 + 0.001 * b + 0.00005 * b * b); }

  Probe operator()(int b) {
    ++calls;
    const std::int64_t p = peak(b);
    if (!fits_budget(p, budget)) {
      if (throw_on_oom) throw std::runtime_error("out of memory at batch " + std::to_string(b));
      return Probe{b, false, 0, p, "over budget"};
    }
    return Probe{b, true, samples_per_s(b), p, ""};
  }
};

std::function<Probe(int)> as_callback(SyntheticDevice& d) {
  return [&d](int b) { return d(b); };
}

void expect_distinct_batches(const BatchSearchResult& r) {
  std::set<int> seen;
  for (const auto& p : r.probes) EXPECT_TRUE(seen.insert(p.batch).second) << "batch " << p.batch << " probed twice";
}

TEST(BatchSearch, FindsExactMaxBatchInLogarithmicProbes) {
  SyntheticDevice device;
  const auto r = search_batch(as_callback(device));
  EXPECT_EQ(r.max_batch, 37);
  EXPECT_FALSE(r.hit_limit);
  // 1..64 growth (7 probes) + bisection 48, 40, 36, 38, 37 (5 probes).
  EXPECT_EQ(r.probes.size(), 12u);
  EXPECT_LE(static_cast<double>(r.probes.size()), 2 * std::ceil(std::log2(37.0)) + 2);
  EXPECT_EQ(device.calls, static_cast<int>(r.probes.size()));
  expect_distinct_batches(r);
  // Growth first: 1, 2, 4, ..., 64.
  for (int i = 0; i < 7; ++i) EXPECT_EQ(r.probes[static_cast<std::size_t>(i)].batch, 1 << i);
}

TEST(BatchSearch, BestBatchIsTheFastestFittingProbe) {
  SyntheticDevice device;
  const auto r = search_batch(as_callback(device));
  double best = 0;
  int best_batch = 0;
  for (const auto& p : r.probes)
    if (p.fits && p.samples_per_s > best) best = p.samples_per_s, best_batch = p.batch;
  EXPECT_EQ(r.best_batch, best_batch);
  EXPECT_EQ(r.best_batch, 16);  // f(8)=377, f(16)=412, f(32)=343
  EXPECT_DOUBLE_EQ(r.best_samples_per_s, SyntheticDevice::samples_per_s(16));
}

TEST(BatchSearch, ExactForManyBudgets) {
  for (int max = 1; max <= 300; max += 7) {
    SyntheticDevice device;
    device.budget = device.peak(max);
    const auto r = search_batch(as_callback(device));
    EXPECT_EQ(r.max_batch, max);
    EXPECT_LE(static_cast<double>(r.probes.size()), 2 * std::ceil(std::log2(max + 1.0)) + 2) << max;
    expect_distinct_batches(r);
  }
}

TEST(BatchSearch, ThrowingCallbackCountsAsFailure) {
  SyntheticDevice device;
  device.throw_on_oom = true;
  const auto r = search_batch(as_callback(device));
  EXPECT_EQ(r.max_batch, 37);
  bool saw_note = false;
  for (const auto& p : r.probes)
    if (!p.fits) {
      EXPECT_EQ(p.samples_per_s, 0);
      saw_note |= p.note.find("out of memory") != std::string::npos;
    }
  EXPECT_TRUE(saw_note);
}

// Ctrl-C during a probe must not be recorded as "does not fit" (the H200 check's cut-short
// search listed 32✗ 24✗ with the note "interrupted"): it ends the search instead.
TEST(BatchSearch, InterruptedCallbackEndsTheSearch) {
  int calls = 0;
  auto interrupt_third = [&](int batch) {
    if (++calls == 3) throw tb::Interrupted();
    return Probe{batch, true, 1.0 * batch, 1, ""};
  };
  EXPECT_THROW(search_batch(interrupt_third, {.start = 8, .limit = 1024}), tb::Interrupted);
  EXPECT_EQ(calls, 3);
}

TEST(BatchSearch, StartThatDoesNotFitGivesZero) {
  SyntheticDevice device;
  device.budget = device.fixed + device.per_sample - 1;
  const auto r = search_batch(as_callback(device));
  EXPECT_EQ(r.max_batch, 0);
  EXPECT_EQ(r.best_batch, 0);
  EXPECT_EQ(r.best_samples_per_s, 0);
  ASSERT_EQ(r.probes.size(), 1u);
  EXPECT_FALSE(r.probes[0].fits);
}

TEST(BatchSearch, StartAboveMaxBisectsDownward) {
  SyntheticDevice device;
  BatchSearchOptions options;
  options.start = 64;
  const auto r = search_batch(as_callback(device), options);
  EXPECT_EQ(r.max_batch, 37);
}

TEST(BatchSearch, MultipleOfKeepsDivisibility) {
  SyntheticDevice device;
  BatchSearchOptions options;
  options.multiple_of = 4;
  const auto r = search_batch(as_callback(device), options);
  EXPECT_EQ(r.max_batch, 36);
  for (const auto& p : r.probes) EXPECT_EQ(p.batch % 4, 0) << p.batch;
  EXPECT_EQ(r.probes.front().batch, 4);
}

TEST(BatchSearch, LimitStopsGrowth) {
  SyntheticDevice device;
  device.budget = 1LL << 40;
  BatchSearchOptions options;
  options.limit = 100;
  const auto r = search_batch(as_callback(device), options);
  EXPECT_EQ(r.max_batch, 100);
  EXPECT_TRUE(r.hit_limit);
  EXPECT_EQ(r.probes.back().batch, 100);
  EXPECT_EQ(r.probes.size(), 8u);  // 1..64, then 100
}

TEST(BatchSearch, MaxProbesCapsCallbacks) {
  SyntheticDevice device;
  BatchSearchOptions options;
  options.max_probes = 3;
  const auto r = search_batch(as_callback(device), options);
  EXPECT_EQ(r.probes.size(), 3u);
  EXPECT_EQ(device.calls, 3);
  EXPECT_EQ(r.max_batch, 4);
}

TEST(BatchSearch, NonDoublingGrowth) {
  SyntheticDevice device;
  BatchSearchOptions options;
  options.growth = 1.5;
  const auto r = search_batch(as_callback(device), options);
  EXPECT_EQ(r.max_batch, 37);
  expect_distinct_batches(r);
}

TEST(BatchSearch, RejectsBadOptions) {
  SyntheticDevice device;
  BatchSearchOptions bad;
  bad.growth = 1.0;
  EXPECT_THROW(search_batch(as_callback(device), bad), std::invalid_argument);
  bad = {};
  bad.multiple_of = 0;
  EXPECT_THROW(search_batch(as_callback(device), bad), std::invalid_argument);
}

TEST(BatchSearch, HelpersAndJson) {
  EXPECT_TRUE(fits_budget(100, 100));
  EXPECT_FALSE(fits_budget(101, 100));
  EXPECT_TRUE(fits_budget(1LL << 50, 0));  // no budget
  EXPECT_EQ(rescale_accumulation(64, 16), 4);
  EXPECT_EQ(rescale_accumulation(64, 64), 1);
  EXPECT_THROW(rescale_accumulation(64, 12), std::invalid_argument);
  EXPECT_EQ(round_down_to_multiple(37, 4), 36);

  SyntheticDevice device;
  const nlohmann::json j = batch_search_entry("mlp", "fp32", search_batch(as_callback(device)));
  EXPECT_EQ(j.at("model"), "mlp");
  EXPECT_EQ(j.at("max_batch"), 37);
  EXPECT_EQ(j.at("best_batch"), 16);
  ASSERT_EQ(j.at("probes").size(), 12u);
  EXPECT_EQ(j.at("probes")[0].at("batch"), 1);
  EXPECT_TRUE(j.at("probes")[0].at("fits").get<bool>());
  EXPECT_EQ(j.at("probes")[6].at("note"), "over budget");
  const auto back = j.at("probes")[6].get<Probe>();
  EXPECT_EQ(back.batch, 64);
  EXPECT_EQ(back.peak_bytes, 1000 + 6400);
}

}  // namespace
}  // namespace tb::capacity
