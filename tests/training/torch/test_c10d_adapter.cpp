// Data-parallel training through the c10d adapter, two Gloo ranks in this process (one thread
// each, meeting at a FileStore): after k steps every rank holds the parameters that one process
// training on the concatenated global batch holds, with and without gradient accumulation and
// under amp_bf16; the ranks agree bit for bit; the comm timing is a plausible split; the library
// carries no Gloo of its own.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>
#include <torch/utils.h>

#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>
#include <trainbench/training/torch/registry.hpp>
#include <trainbench/training/torch/sharded_source.hpp>
#include <trainbench/training/torch/trainer.hpp>

#include "tests/helpers/scratch_dir.hpp"

namespace tb {
namespace {

constexpr int kRanks = 2;

// c10d's flight recorder (on by default, one per process) inserts each new process group into a
// map before taking its lock: two ranks in one process racing on their first collective crash it
// (seen once in ~100 runs, SIGSEGV in FlightRecorder::recordWithResetEnabled). trainbench runs one
// rank per process; here the ranks are threads, so the recorder is off before any group forms.
[[maybe_unused]] const bool kFlightRecorderOff = [] { return ::setenv("TORCH_FR_BUFFER_SIZE", "0", 1) == 0; }();

ScenarioParams mlp_params(int batch, int accumulation, Precision precision) {
  ScenarioParams p;
  p.model = "mlp";
  p.optimizer = tb::OptimizerKind::sgd;
  p.learning_rate = 0.1;
  p.momentum = 0.9;
  p.precision = precision;
  p.batch = batch;
  p.accumulation = accumulation;
  p.effective_batch = batch * accumulation;
  p.model_options = {{"hidden", 32}, {"depth", 2}};
  return p;
}

// The dataset holds exactly one global batch: every optimizer step then sees all of it, on one
// process or spread over the ranks, whatever order each epoch shuffles it into (a mean over the
// same samples), so the two trainings are comparable step by step.
nlohmann::json dataset_options(int samples) { return {{"samples", samples}, {"features", 16}, {"classes", 4}}; }

std::vector<at::Tensor> parameters_of(TrainableModel& model) {
  std::vector<at::Tensor> out;
  for (const auto& t : model.module().parameters()) out.push_back(t.detach().clone());
  return out;
}

std::vector<at::Tensor> train_one_process(ScenarioParams p, int steps) {
  const int samples = p.effective_batch * kRanks;
  p.batch = samples;  // the concatenated global batch, in one micro-batch
  p.accumulation = 1;
  p.effective_batch = samples;
  torch::manual_seed(7);
  auto source = Registry::instance().dataset("synthetic").factory({dataset_options(samples), 1});
  auto model = Registry::instance().model("mlp").factory(p.model_options, source->info());
  BatchStream stream(source, p.batch, 0);
  Trainer trainer(p, *model, stream, c10::Device(c10::kCPU));
  StepSample s;
  for (int i = 0; i < steps; ++i) trainer.step(s);
  return parameters_of(*model);
}

struct RankRun {
  std::vector<at::Tensor> parameters;
  std::vector<StepSample> samples;
  std::int64_t gradient_bytes = 0;
  std::string error;
};

// `kRanks` ranks on threads of this process, each with its shard, its model and its reducer.
std::vector<RankRun> train_data_parallel(const ScenarioParams& p, int steps, const std::string& name) {
  const auto dir = test::scratch_dir("c10d_adapter." + name);
  const int samples = p.effective_batch * kRanks;
  std::vector<std::unique_ptr<TrainableModel>> models;
  std::vector<std::unique_ptr<BatchStream>> streams;
  std::vector<std::unique_ptr<Trainer>> trainers;
  for (int r = 0; r < kRanks; ++r) {  // one after the other: the seed is process-wide
    torch::manual_seed(7 + r);        // different initial weights: the broadcast must make them rank 0's
    auto source = Registry::instance().dataset("synthetic").factory({dataset_options(samples), 1});
    models.push_back(Registry::instance().model("mlp").factory(p.model_options, source->info()));
    streams.push_back(std::make_unique<BatchStream>(std::make_shared<ShardedSource>(source, r, kRanks), p.batch, 0));
    trainers.push_back(std::make_unique<Trainer>(p, *models[r], *streams[r], c10::Device(c10::kCPU)));
  }
  // Rank 0's initial weights are what the single process starts from (same seed, same shapes).
  std::vector<RankRun> runs(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r]() {
      try {
        RankEnvironment env;
        env.rank = r;
        env.world_size = kRanks;
        env.launcher = "test";
        env.store_file = (dir / "store").string();
        auto world = dist::World::join(env, std::chrono::seconds(60));
        auto group = world->group(kRanks, c10::Device(c10::kCPU), "test");
        auto& module = models[r]->module();
        std::vector<at::Tensor> state = module.parameters();
        for (const auto& b : module.buffers()) state.push_back(b);
        group->broadcast_from_rank0(state);
        dist::GradientReducer reducer(group, module.parameters(), 25.0);
        trainers[r]->attach_reducer(&reducer);
        StepSample s;
        for (int i = 0; i < steps; ++i) {
          trainers[r]->step(s);
          runs[r].samples.push_back(s);
        }
        trainers[r]->attach_reducer(nullptr);
        runs[r].parameters = parameters_of(*models[r]);
        runs[r].gradient_bytes = reducer.gradient_bytes();
      } catch (const std::exception& e) { runs[r].error = e.what(); }
    });
  for (auto& t : threads) t.join();
  return runs;
}

void expect_same_training(const ScenarioParams& p, double rtol, double atol, const std::string& name) {
  constexpr int kSteps = 3;
  const auto runs = train_data_parallel(p, kSteps, name);
  for (const auto& run : runs) ASSERT_TRUE(run.error.empty()) << run.error;
  const auto reference = train_one_process(p, kSteps);
  ASSERT_EQ(runs[0].parameters.size(), reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    EXPECT_TRUE(at::equal(runs[0].parameters[i], runs[1].parameters[i])) << "ranks disagree on parameter " << i;
    EXPECT_TRUE(at::allclose(runs[0].parameters[i], reference[i], rtol, atol))
        << "parameter " << i << " differs from one process on the global batch by "
        << (runs[0].parameters[i] - reference[i]).abs().max().item<double>();
  }
}

TEST(C10dAdapter, TwoRanksTrainAsOneProcessOnTheGlobalBatch) {
  expect_same_training(mlp_params(16, 1, Precision::fp32), 1e-5, 1e-6, "fp32");
}

// Accumulation: only the last micro-batch's backward all-reduces (DDP's no_sync for the others),
// and the result is still the global batch's gradient.
TEST(C10dAdapter, AccumulationAllReducesOncePerStep) {
  expect_same_training(mlp_params(8, 2, Precision::fp32), 1e-5, 1e-6, "accumulation");
}

TEST(C10dAdapter, AmpBf16MatchesOneProcess) {
  // bf16 rounds inside the forward; the same rounding happens in both trainings, per sample.
  expect_same_training(mlp_params(16, 1, Precision::amp_bf16), 2e-2, 1e-3, "amp_bf16");
}

// Guards the tests above against passing trivially: one rank training on its shard alone ends
// elsewhere than the global batch does.
TEST(C10dAdapter, OneShardAloneDiffers) {
  ScenarioParams p = mlp_params(16, 1, Precision::fp32);
  const auto reference = train_one_process(p, 3);
  torch::manual_seed(7);
  auto source = Registry::instance().dataset("synthetic").factory({dataset_options(32), 1});
  auto model = Registry::instance().model("mlp").factory(p.model_options, source->info());
  BatchStream stream(std::make_shared<ShardedSource>(source, 0, kRanks), p.batch, 0);
  Trainer trainer(p, *model, stream, c10::Device(c10::kCPU));
  StepSample s;
  for (int i = 0; i < 3; ++i) trainer.step(s);
  const auto alone = parameters_of(*model);
  bool differs = false;
  for (std::size_t i = 0; i < alone.size(); ++i) differs |= !at::allclose(alone[i], reference[i], 1e-5, 1e-6);
  EXPECT_TRUE(differs);
}

// The comm phase is the wait after backward's compute: never negative, never more than the step,
// and the phases still add up to no more than the step.
TEST(C10dAdapter, CommPhaseIsAPartOfTheStep) {
  const auto runs = train_data_parallel(mlp_params(16, 1, Precision::fp32), 4, "timing");
  for (const auto& run : runs) {
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_GT(run.gradient_bytes, 0);
    for (const auto& s : run.samples) {
      const double comm = s.phase_s[static_cast<int>(Phase::comm)];
      EXPECT_GE(comm, 0.0);
      EXPECT_GE(s.overlapped_comm_s, 0.0);
      double sum = 0;
      for (const double t : s.phase_s) sum += t;
      EXPECT_LE(sum, s.step_s * 1.001 + 1e-6);
      EXPECT_LE(comm, s.step_s);
    }
  }
}

// After the first step the reducer re-buckets in gradient-arrival order with a small first bucket
// (as DDP does): with two buckets the first one is all-reduced while backward still computes the
// first layer's gradients, so some communication overlaps, structurally, on any machine.
TEST(C10dAdapter, FirstBucketOverlapsTheRestOfBackward) {
  ScenarioParams p = mlp_params(16, 1, Precision::fp32);
  p.model_options = {{"hidden", 512}, {"depth", 3}};  // about 2 MiB of gradients: two buckets
  const auto runs = train_data_parallel(p, 4, "overlap");
  for (const auto& run : runs) {
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_GT(run.gradient_bytes, 1024 * 1024);
    for (std::size_t step = 1; step < run.samples.size(); ++step)  // step 0 has one bucket
      EXPECT_GT(run.samples[step].overlapped_comm_s, 0.0) << "step " << step;
  }
}

TEST(C10dAdapter, SharedSourceGivesEachRankItsStride) {
  auto source = Registry::instance().dataset("synthetic").factory({dataset_options(10), 1});
  ShardedSource rank1(source, 1, 3);
  EXPECT_EQ(rank1.size(), 3u);  // 10 / 3: no padding, every rank the same count
  EXPECT_TRUE(at::equal(rank1.get(2).data, source->get(7).data));
  EXPECT_THROW(ShardedSource(source, 0, 11), InputError);
}

// Gloo is inside libtorch_cpu; the Debian headers are compiled against, never linked: the
// library must define no gloo:: symbol (a second Gloo would be a second, clashing copy).
TEST(C10dAdapter, LibraryCarriesNoGlooOfItsOwn) {
  const std::string cmd = std::string("nm -DC --defined-only '") + TB_TORCH_LIBRARY + "' 2>&1 | grep -c 'gloo::'";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[64] = {};
  const bool read = fgets(buf, sizeof buf, pipe) != nullptr;
  pclose(pipe);
  ASSERT_TRUE(read) << cmd;
  EXPECT_EQ(std::stoi(buf), 0) << "gloo:: symbols defined in " << TB_TORCH_LIBRARY;
  const std::string needed = std::string("readelf -d '") + TB_TORCH_LIBRARY + "' | grep -c 'libgloo'";
  pipe = popen(needed.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  buf[0] = 0;
  ASSERT_TRUE(fgets(buf, sizeof buf, pipe) != nullptr);
  pclose(pipe);
  EXPECT_EQ(std::stoi(buf), 0) << "links a libgloo";
}

}  // namespace
}  // namespace tb
