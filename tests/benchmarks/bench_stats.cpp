// Cost of the statistics on the measurement path: summarize() runs after every measured step
// for the stopping rule, so it must stay far below a step time; the bootstrap runs once per
// compared scenario.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include <trainbench/measure/stats.hpp>

namespace {

std::vector<double> samples(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0.010, 0.0005);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

void BM_Summarize(benchmark::State& state) {
  const auto v = samples(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(tb::stats::summarize(v));
}
BENCHMARK(BM_Summarize)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000);

void BM_BootstrapRatio(benchmark::State& state) {
  const auto a = samples(static_cast<std::size_t>(state.range(0)), 1);
  const auto b = samples(static_cast<std::size_t>(state.range(0)), 2);
  for (auto _ : state) benchmark::DoNotOptimize(tb::stats::bootstrap_ratio_of_medians(a, b));
}
BENCHMARK(BM_BootstrapRatio)->Arg(30)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
