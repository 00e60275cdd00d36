// trainbench-needs-torch
// The harness's own per-step overhead: Trainer::step (phase timers, NVTX ranges, loss kept on the
// device, scaler plumbing) against a bare LibTorch loop of the same model, data and optimizer.
// Both pull batches through the same torch::data DataLoader. Target: under 2% on the smallest
// model on the CPU. Run with --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// and compare the medians.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/registry.hpp>
#include <trainbench/training/torch/trainer.hpp>

namespace {

struct Fixture {
  tb::ScenarioParams params;
  std::shared_ptr<tb::SampleSource> source;
  std::unique_ptr<tb::TrainableModel> model;
  std::unique_ptr<tb::BatchStream> stream;

  explicit Fixture(int batch) {
    params.model = "mlp";
    params.batch = batch;
    params.effective_batch = batch;
    torch::manual_seed(1);
    source = tb::Registry::instance().dataset("synthetic").factory(
        {{{"samples", 4096}, {"features", 512}, {"classes", 10}}, 1});
    model = tb::Registry::instance().model("mlp").factory({{"hidden", 256}}, source->info());
    stream = std::make_unique<tb::BatchStream>(source, batch, 0);
  }
};

void BM_BareLoop(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  torch::optim::Adam optimizer(f.model->module().parameters(), torch::optim::AdamOptions(1e-3));
  f.model->module().train();
  torch::data::Example<> batch;
  for (auto _ : state) {
    f.stream->next(batch);
    auto loss = f.model->loss(f.model->forward(batch.data), batch.target);
    loss.backward();
    optimizer.step();
    optimizer.zero_grad();
    benchmark::DoNotOptimize(loss.item<float>());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_HarnessStep(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  tb::Trainer trainer(f.params, *f.model, *f.stream, c10::Device(c10::kCPU));
  tb::StepSample sample;
  for (auto _ : state) {
    trainer.step(sample);
    benchmark::DoNotOptimize(sample.loss);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Paired: each iteration runs one bare step and one harness step back to back, so the drift of a
// noisy machine hits both alike; the counter overhead_pct is median(harness) / median(bare) - 1.
void BM_PairedOverhead(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  Fixture bare(batch), harnessed(batch);
  torch::optim::Adam optimizer(bare.model->module().parameters(), torch::optim::AdamOptions(1e-3));
  bare.model->module().train();
  tb::Trainer trainer(harnessed.params, *harnessed.model, *harnessed.stream, c10::Device(c10::kCPU));
  tb::StepSample sample;
  torch::data::Example<> example;
  std::vector<double> bare_s, harness_s;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    auto t0 = Clock::now();
    bare.stream->next(example);
    auto loss = bare.model->loss(bare.model->forward(example.data), example.target);
    loss.backward();
    optimizer.step();
    optimizer.zero_grad();
    benchmark::DoNotOptimize(loss.item<float>());
    auto t1 = Clock::now();
    trainer.step(sample);
    benchmark::DoNotOptimize(sample.loss);
    auto t2 = Clock::now();
    bare_s.push_back(std::chrono::duration<double>(t1 - t0).count());
    harness_s.push_back(std::chrono::duration<double>(t2 - t1).count());
  }
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  state.counters["bare_ms"] = median(bare_s) * 1e3;
  state.counters["harness_ms"] = median(harness_s) * 1e3;
  state.counters["overhead_pct"] = (median(harness_s) / median(bare_s) - 1.0) * 100.0;
}

BENCHMARK(BM_BareLoop)->Arg(64)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_HarnessStep)->Arg(64)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_PairedOverhead)->Arg(64)->Arg(512)->MinTime(3.0)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
