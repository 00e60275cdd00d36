// trainbench-needs-torch
// The harness's own per-step cost: Trainer::step (phase timers, NVTX and trace ranges, the step's
// mean loss, scaler plumbing) against a bare LibTorch loop of the same model, data and optimizer,
// both pulling batches through the same torch::data DataLoader. Target: at most 1% on the smallest
// step (MLP, micro-batch 64, accumulation 1 and 4). BM_Part_* time each addition alone (where the
// overhead goes), BM_PairedAA is the pairing's own reading when nothing differs, and the CUDA pair
// runs where a GPU is present (scripts/device-check.sh). Read:
//   bench_harness_overhead --benchmark_filter='Paired|Part' --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <vector>

#include <torch/cuda.h>
#include <torch/nn/module.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <trainbench/measure/torch/phase_scope.hpp>
#include <trainbench/profiling/nvtx.hpp>
#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/device_prefetcher.hpp>
#include <trainbench/training/torch/grad_scaler.hpp>
#include <trainbench/training/torch/precision.hpp>
#include <trainbench/training/torch/registry.hpp>
#include <trainbench/training/torch/trainer.hpp>

namespace {

struct Fixture {
  tb::ScenarioParams params;
  c10::Device device;
  std::shared_ptr<tb::SampleSource> source;
  std::unique_ptr<tb::TrainableModel> model;
  std::unique_ptr<tb::BatchStream> stream;

  Fixture(int batch, int accumulation, c10::Device on, tb::Precision precision = tb::Precision::fp32) : device(on) {
    params.model = "mlp";
    params.batch = batch;
    params.accumulation = accumulation;
    params.effective_batch = batch * accumulation;
    params.precision = precision;
    params.device = on.is_cuda() ? tb::DeviceKind::cuda : tb::DeviceKind::cpu;
    torch::manual_seed(1);
    source = tb::Registry::instance()
                 .dataset("synthetic")
                 .factory({{{"samples", 4096}, {"features", 512}, {"classes", 10}}, 1});
    model = tb::Registry::instance().model("mlp").factory({{"hidden", 256}}, source->info());
    model->module().to(device);
    stream = std::make_unique<tb::BatchStream>(source, batch, 0);
  }
};

// What a plain LibTorch loop does for one optimizer step, the article's loop: k micro-batches
// (loss / k, backward each), the optimizer step, zero_grad, and the loss read once (a loop that
// logs its loss). With a reduced precision, autocast and (float16) the same GradScaler the
// trainer uses: the scaler is part of training, not of the harness.
class BareLoop {
 public:
  BareLoop(int batch, int accumulation, c10::Device device, tb::Precision precision = tb::Precision::fp32)
      : f_(batch, accumulation, device, precision),
        optimizer_(f_.model->module().parameters(), torch::optim::AdamOptions(1e-3)),
        scaler_(device, tb::GradScalerOptions().enabled(tb::needs_grad_scaler(precision))) {
    f_.model->module().train();
  }
  double step() {
    const int k = f_.params.accumulation;
    at::Tensor loss;
    for (int micro = 0; micro < k; ++micro) {
      f_.stream->next(batch_);
      const auto input = batch_.data.to(f_.device, /*non_blocking=*/true);
      const auto target = batch_.target.to(f_.device, /*non_blocking=*/true);
      {
        tb::AutocastScope autocast(f_.params.precision, f_.device.type());
        loss = f_.model->loss(f_.model->forward(input), target);
        if (k > 1) loss = loss * (1.0 / k);
      }
      scaler_.scale(loss).backward();
    }
    if (scaler_.enabled()) {
      scaler_.step(optimizer_);
      scaler_.update();
    } else {
      optimizer_.step();
    }
    optimizer_.zero_grad();
    return loss.item<double>();  // waits for the device, like the trainer's step
  }

 private:
  Fixture f_;
  torch::optim::Adam optimizer_;
  tb::GradScaler scaler_;
  torch::data::Example<> batch_;
};

// Trainer::step on the same model, data and optimizer: phase timers (host clock, or CUDA events),
// NVTX and trace ranges, the step's mean loss over its micro-batches, scaler plumbing.
class HarnessLoop {
 public:
  HarnessLoop(int batch, int accumulation, c10::Device device, tb::Precision precision = tb::Precision::fp32)
      : f_(batch, accumulation, device, precision), trainer_(f_.params, *f_.model, *f_.stream, device) {}
  double step() {
    trainer_.step(sample_);
    return sample_.loss;
  }

 private:
  Fixture f_;
  tb::Trainer trainer_;
  tb::StepSample sample_;
};

double quantile(std::vector<double> v, double q) {
  const auto nth = v.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), nth, v.end());
  return *nth;
}
double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

// Paired and interleaved: each iteration runs one step of each loop, the order alternating, so
// the drift of a noisy machine and the cost of going second (caches the other loop evicted) hit
// both alike. Where a loop's tensors land in the heap moves its step by up to ~2% on this
// machine (an A/A pair of two bare loops read -2.4% in one process), so the pair is rebuilt
// kRounds times per run, constructed in alternating order, and the estimate is over all rounds.
// overhead_pct: the median over iterations of b/a - 1; a_ms, b_ms: median step times;
// pair_iqr_pct: how far single pairs scatter. Run with --benchmark_repetitions=3.
template <class A, class B>
void run_paired(benchmark::State& state, int batch, int accumulation, c10::Device device,
                tb::Precision precision = tb::Precision::fp32) {
  constexpr std::int64_t kRounds = 16;
  const std::int64_t per_round = std::max<std::int64_t>(1, state.max_iterations / kRounds);
  std::optional<A> a;
  std::optional<B> b;
  const auto rebuild = [&](std::int64_t round) {
    a.reset();
    b.reset();
    if (round % 2 == 0) {
      a.emplace(batch, accumulation, device, precision);
      b.emplace(batch, accumulation, device, precision);
    } else {
      b.emplace(batch, accumulation, device, precision);
      a.emplace(batch, accumulation, device, precision);
    }
    for (int i = 0; i < 5; ++i) {  // warm-up: lazily made optimizer state, allocator caches
      benchmark::DoNotOptimize(a->step());
      benchmark::DoNotOptimize(b->step());
    }
  };
  using Clock = std::chrono::steady_clock;
  const auto timed = [](auto& loop) {
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(loop.step());
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  std::vector<double> a_s, b_s, ratio;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    if (iteration % per_round == 0) {
      state.PauseTiming();
      rebuild(iteration / per_round);
      state.ResumeTiming();
    }
    double ta = 0, tb = 0;
    if (iteration % 2 == 0) {
      ta = timed(*a);
      tb = timed(*b);
    } else {
      tb = timed(*b);
      ta = timed(*a);
    }
    ++iteration;
    a_s.push_back(ta);
    b_s.push_back(tb);
    ratio.push_back(tb / ta);
  }
  state.counters["a_ms"] = median(a_s) * 1e3;
  state.counters["b_ms"] = median(b_s) * 1e3;
  state.counters["overhead_pct"] = (median(ratio) - 1.0) * 100.0;
  state.counters["pair_iqr_pct"] = (quantile(ratio, 0.75) - quantile(ratio, 0.25)) * 100.0;
}

// The harness (b) against the bare loop (a). Arguments: micro-batch, accumulation.
void BM_PairedOverhead(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1));
  run_paired<BareLoop, HarnessLoop>(state, batch, k, c10::Device(c10::kCPU));
}

// The control: the bare loop against a second bare loop. Its overhead_pct is what the pairing
// reads when nothing differs; the harness's figure means something only beyond it.
void BM_PairedAA(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1));
  run_paired<BareLoop, BareLoop>(state, batch, k, c10::Device(c10::kCPU));
}

// The same on the first CUDA device: CUDA events at the phase boundaries, the loss summed on the
// device, and at amp_fp16 the GradScaler on both sides. Registered only when a GPU is present.
void BM_PairedOverheadCuda(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1));
  const auto precision = state.range(2) != 0 ? tb::Precision::amp_fp16 : tb::Precision::fp32;
  run_paired<BareLoop, HarnessLoop>(state, batch, k, c10::Device(c10::kCUDA, 0), precision);
}

// The harness's additions to one step (accumulation 1), each alone, to find where the overhead goes.
// Timer: the host StepTimer's boundaries (start, the 5 phases, finish).
void BM_Part_StepTimer(benchmark::State& state) {
  auto timer = tb::StepTimer::create(c10::Device(c10::kCPU), tb::boundaries_per_step(1));
  tb::StepSample sample;
  for (auto _ : state) {
    timer->start_step();
    for (auto p : {tb::Phase::data_wait, tb::Phase::h2d, tb::Phase::forward, tb::Phase::backward, tb::Phase::optimizer})
      timer->end_phase(p);
    timer->finish_step(sample);
    benchmark::DoNotOptimize(sample.step_s);
  }
}

// Scopes: the step's NVTX range and 5 phase scopes (NVTX range, trace range, timer boundary).
void BM_Part_PhaseScopes(benchmark::State& state) {
  auto timer = tb::StepTimer::create(c10::Device(c10::kCPU), tb::boundaries_per_step(1));
  tb::StepSample sample;
  for (auto _ : state) {
    TB_NVTX_STEP();
    timer->start_step();
    for (auto p : {tb::Phase::data_wait, tb::Phase::h2d, tb::Phase::forward, tb::Phase::backward, tb::Phase::optimizer})
      tb::PhaseScope scope(*timer, p);
    timer->finish_step(sample);
    benchmark::DoNotOptimize(sample.step_s);
  }
}

// Input and target handed to the device (the CPU here: the same tensors back).
void BM_Part_CopyToDevice(benchmark::State& state) {
  const auto input = at::randn({64, 512});
  const auto target = at::zeros({64}, at::kLong);
  for (auto _ : state) {
    auto a = tb::copy_to_device(input, c10::Device(c10::kCPU), c10::MemoryFormat::Preserve);
    auto b = tb::copy_to_device(target, c10::Device(c10::kCPU), c10::MemoryFormat::Preserve);
    benchmark::DoNotOptimize(a.data_ptr());
    benchmark::DoNotOptimize(b.data_ptr());
  }
}

// The step's loss kept for the report, beyond the bare loop's one item(): a detached handle per
// micro-batch (what the trainer does) against the sum kept on the device that it did before
// (zero_ and add_ per step: two kernels, two launches on a GPU).
void BM_Part_LossHandle(benchmark::State& state) {
  std::vector<at::Tensor> handles(1);
  const auto loss = at::randn({});
  for (auto _ : state) {
    handles[0] = loss.detach();
    benchmark::DoNotOptimize(handles[0].unsafeGetTensorImpl());
  }
}

void BM_Part_LossSumOnDevice(benchmark::State& state) {
  auto sum = at::zeros({});
  const auto loss = at::randn({});
  for (auto _ : state) {
    sum.zero_();
    sum.add_(loss.detach());
    benchmark::DoNotOptimize(sum.data_ptr());
  }
}

// Autocast scope and gradient scaler at fp32 (both off: their plumbing only).
void BM_Part_PrecisionPlumbing(benchmark::State& state) {
  tb::GradScaler scaler(c10::Device(c10::kCPU), tb::GradScalerOptions().enabled(false));
  const auto loss = at::randn({});
  for (auto _ : state) {
    tb::AutocastScope autocast(tb::Precision::fp32, c10::kCPU);
    auto scaled = scaler.scale(loss);
    benchmark::DoNotOptimize(scaled.data_ptr());
  }
}

BENCHMARK(BM_Part_StepTimer);
BENCHMARK(BM_Part_PhaseScopes);
BENCHMARK(BM_Part_CopyToDevice);
BENCHMARK(BM_Part_LossHandle);
BENCHMARK(BM_Part_LossSumOnDevice);
BENCHMARK(BM_Part_PrecisionPlumbing);
BENCHMARK(BM_PairedOverhead)
    ->ArgNames({"batch", "accum"})
    ->Args({64, 1})
    ->Args({64, 4})
    ->Args({512, 1})
    ->MinTime(5.0)
    ->UseRealTime();
BENCHMARK(BM_PairedAA)->ArgNames({"batch", "accum"})->Args({64, 1})->MinTime(5.0)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (torch::cuda::is_available()) {
    benchmark::RegisterBenchmark("BM_PairedOverheadCuda", BM_PairedOverheadCuda)
        ->ArgNames({"batch", "accum", "fp16"})
        ->Args({64, 1, 0})
        ->Args({64, 4, 0})
        ->Args({64, 1, 1})
        ->Args({512, 1, 0})
        ->MinTime(1.0)
        ->UseRealTime();
    std::fprintf(stderr, "BM_PairedOverheadCuda registered on cuda:0\n");
  } else {
    std::fprintf(stderr, "BM_PairedOverheadCuda skipped: no CUDA device (torch::cuda::is_available() is false)\n");
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
