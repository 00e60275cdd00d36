// Costs of the profiling hooks that stay in the training loop: an NVTX range with no tool
// attached (enabled and switched off), a TB_HOST_SPAN with and without an active recorder, and
// Chrome trace serialization throughput (events/s).
#if !defined(TRAINBENCH_NVTX) && __has_include(<nvtx3/nvToolsExt.h>)
#define TRAINBENCH_NVTX 1  // measure the real NVTX path even when the build compiles it out
#endif
#include <benchmark/benchmark.h>

#include <trainbench/profiling/chrome_trace_logger.hpp>
#include <trainbench/profiling/host_recorder.hpp>
#include <trainbench/profiling/nvtx.hpp>

namespace tbp = tb::profiling;

namespace {

void BM_NvtxPhaseRange(benchmark::State& state) {
  tb::nvtx::set_enabled(true);
  for (auto _ : state) {
    TB_NVTX_PHASE(tb::Phase::forward);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NvtxPhaseRange);

void BM_NvtxPhaseRangeSwitchedOff(benchmark::State& state) {
  tb::nvtx::set_enabled(false);
  for (auto _ : state) {
    TB_NVTX_PHASE(tb::Phase::forward);
    benchmark::ClobberMemory();
  }
  tb::nvtx::set_enabled(true);
}
BENCHMARK(BM_NvtxPhaseRangeSwitchedOff);

void BM_NvtxScenarioRangeDynamicName(benchmark::State& state) {
  tb::nvtx::set_enabled(true);
  const std::string name = "mlp/fp32/w0/a1/b64";
  for (auto _ : state) {
    TB_NVTX_SCENARIO(name);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NvtxScenarioRangeDynamicName);

void BM_HostSpanInactive(benchmark::State& state) {
  tbp::set_active_recorder(nullptr);
  for (auto _ : state) {
    TB_HOST_SPAN("decode");
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_HostSpanInactive);

void BM_HostSpanActive(benchmark::State& state) {
  // One recorder shared by all benchmark threads, emptied now and then so the benchmark
  // measures recording rather than the drop path.
  static tbp::HostRecorder rec(std::size_t{1} << 20);
  if (state.thread_index() == 0) {
    rec.clear();
    tbp::set_active_recorder(&rec);
  }
  std::size_t n = 0;
  for (auto _ : state) {
    TB_HOST_SPAN("decode");
    benchmark::ClobberMemory();
    if (++n % (1u << 16) == 0 && state.thread_index() == 0) {
      state.PauseTiming();
      rec.clear();
      state.ResumeTiming();
    }
  }
  if (state.thread_index() == 0) tbp::set_active_recorder(nullptr);
}
BENCHMARK(BM_HostSpanActive)->Threads(1)->Threads(4);

// A synthetic window: host phases plus launches, kernels and flows, like a GPU profiling pass.
tbp::ChromeTraceLogger synthetic_window(std::int64_t steps) {
  tbp::ChromeTraceLogger log;
  log.handle_thread({0, "main"});
  std::int64_t t = 1'000'000;
  std::uint32_t corr = 1;
  for (std::int64_t s = 0; s < steps; ++s) {
    log.handle_host_span({0, "step", tbp::kCategoryStep, t, t + 100'000, s});
    for (int p = 0; p < 5; ++p) {
      const std::int64_t pb = t + p * 20'000;
      log.handle_host_span({0, tb::kPhaseNames[p], tbp::kCategoryPhase, pb, pb + 20'000, s});
      for (int k = 0; k < 8; ++k, ++corr) {
        tbp::RuntimeCall c;
        c.name = "cudaLaunchKernel";
        c.start_ns = pb + k * 2000;
        c.end_ns = c.start_ns + 500;
        c.thread_id = 77;
        c.correlation_id = corr;
        log.handle_runtime_call(c);
        tbp::GpuActivity a;
        a.name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
        a.start_ns = pb + k * 2000 + 1000;
        a.end_ns = a.start_ns + 900;
        a.stream = 7;
        a.correlation_id = corr;
        log.handle_gpu_activity(a);
      }
    }
    t += 100'000;
  }
  return log;
}

void BM_ChromeTraceSerialize(benchmark::State& state) {
  const auto log = synthetic_window(state.range(0));
  const tbp::TraceInfo info{"bench", {}};
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = log.serialize(info);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * log.event_count()));
  state.counters["events"] = static_cast<double>(log.event_count());
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ChromeTraceSerialize)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
