// The batch search on the CPU with a memory budget: real training probes, each judged against
// the budget by measured peak RSS; the search result and its memory fit land in results.json.
#include <gtest/gtest.h>

#include <trainbench/capacity/memory_probe.hpp>
#include <trainbench/capacity/torch/capacity_search.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/support/error.hpp>

namespace tb {
namespace {

TEST(CapacitySearch, CpuBudgetBoundsTheBatch) {
  const auto j = nlohmann::json::parse(R"({
    "name": "cap", "model": "mlp", "device": "cpu",
    "dataset_options": {"samples": 4096, "features": 1024}, "model_options": {"hidden": 512},
    "steps": {"warmup": 1, "min": 2, "max": 3, "time_budget_s": 1},
    "axes": {"batch": "max"},
    "capacity": {"start": 16, "max_batch": 4096, "multiple_of": 16}
  })");
  const auto spec = parse_matrix(j, "cap.json", default_parse_options());
  ASSERT_TRUE(spec.batch_search);
  capacity::PeakRssProbe probe;
  RunOptions options;
  options.memory_budget_bytes = probe.current_rss_bytes() + (96ll << 20);
  RunResult run;
  const auto found = search_capacity(spec, options, run);
  ASSERT_EQ(found.size(), 1u);
  const nlohmann::json search = run.capacity.value().batch_search.at(0);
  const int max_batch = search.at("max_batch").get<int>();
  EXPECT_GE(max_batch, 16);
  EXPECT_EQ(found.begin()->second.max_batch, max_batch);
  int largest_fit = 0, smallest_fail = 1 << 30;
  for (const auto& p : search.at("probes")) {
    const auto peak = p.at("peak_bytes").get<std::int64_t>();
    const int batch = p.at("batch").get<int>();
    EXPECT_EQ(batch % 16, 0);
    if (p.at("fits").get<bool>()) {
      EXPECT_LE(peak, options.memory_budget_bytes) << "batch " << batch;
      EXPECT_GT(p.at("samples_per_s").get<double>(), 0);
      largest_fit = std::max(largest_fit, batch);
    } else {
      EXPECT_GT(peak, options.memory_budget_bytes) << "batch " << batch;
      smallest_fail = std::min(smallest_fail, batch);
    }
  }
  EXPECT_EQ(largest_fit, max_batch);
  if (smallest_fail != 1 << 30) { EXPECT_LE(smallest_fail - max_batch, 16); }  // bisected to resolution
  EXPECT_GT(found.begin()->second.best_batch, 0);
  EXPECT_LE(found.begin()->second.best_batch, max_batch);
}

TEST(CapacitySearch, CpuWithoutBudgetIsAnInputError) {
  const auto j = nlohmann::json::parse(R"({"name": "cap", "device": "cpu", "axes": {"batch": "max"}})");
  const auto spec = parse_matrix(j, "cap.json", default_parse_options());
  RunResult run;
  try {
    search_capacity(spec, RunOptions{}, run);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) { EXPECT_EQ(e.field(), "capacity.memory_budget"); }
}

}  // namespace
}  // namespace tb
