#include <trainbench/training/torch/batch_stream.hpp>

#include <pthread.h>

#include <atomic>
#include <optional>
#include <thread>

#include <ATen/ATen.h>
#include <torch/data/dataloader.h>
#include <torch/data/datasets/base.h>
#include <torch/data/datasets/map.h>
#include <torch/data/samplers/random.h>
#include <torch/data/transforms/collate.h>

#include <trainbench/profiling/host_recorder.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

namespace {

// Adapts the polymorphic SampleSource to torch::data's statically typed Dataset.
class SourceDataset : public torch::data::datasets::Dataset<SourceDataset> {
 public:
  explicit SourceDataset(std::shared_ptr<SampleSource> source)
      : source_(std::move(source)), owner_(std::this_thread::get_id()) {}
  torch::data::Example<> get(std::size_t index) override {
    name_worker_thread();
    return source_->get(index);
  }
  std::optional<std::size_t> size() const override { return source_->size(); }

 private:
  // Worker threads show up in traces as "loader-N" (the main thread keeps its own name): in the
  // host recorder's, and as the OS thread name, which Kineto's thread_name metadata reads. Once
  // per thread, on its first sample (before any profiling window).
  void name_worker_thread() const {
    thread_local bool named = false;
    if (named || std::this_thread::get_id() == owner_) return;
    static std::atomic<int> next{0};
    const std::string name = "loader-" + std::to_string(next.fetch_add(1));
    profiling::HostRecorder::set_thread_name(name);
    ::pthread_setname_np(::pthread_self(), name.substr(0, 15).c_str());  // Linux allows 15 characters
    named = true;
  }

  std::shared_ptr<SampleSource> source_;
  std::thread::id owner_;
};

// torch::data's Stack<>, pinning the stacked tensors when asked.
class StackBatch : public torch::data::transforms::Collation<torch::data::Example<>> {
 public:
  explicit StackBatch(bool pin_memory) : pin_memory_(pin_memory) {}
  torch::data::Example<> apply_batch(std::vector<torch::data::Example<>> examples) override {
    TB_HOST_SPAN("collate", "loader");  // on the worker thread: its track in the host trace
    std::vector<at::Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    auto batch = torch::data::Example<>(at::stack(data), at::stack(targets));
    if (pin_memory_) {
      batch.data = batch.data.pin_memory();
      batch.target = batch.target.pin_memory();
    }
    return batch;
  }

 private:
  bool pin_memory_;
};

using StackedDataset = torch::data::datasets::MapDataset<SourceDataset, StackBatch>;
using Loader = torch::data::StatelessDataLoader<StackedDataset, torch::data::samplers::RandomSampler>;

}  // namespace

struct BatchStream::Impl {
  std::unique_ptr<Loader> loader;
  std::optional<torch::data::Iterator<torch::data::Example<>>> it;
  std::int64_t epochs = 0;
  bool fresh = false;  // `it` holds a batch not yet handed out

  void restart() {
    it.reset();
    it.emplace(loader->begin());
    fresh = true;
    ++epochs;
  }
};

namespace {

// Waits `delay` to within a few microseconds: sleeps until about a millisecond before the
// deadline, then spins on the clock. A bare sleep overshoots by the scheduler's wake-up latency
// (tens to hundreds of microseconds, varying), so a planted slowdown of a fraction of a
// millisecond cost anything from nothing to twice its size; spinning the whole delay would
// burn a core the loader's workers may need.
void wait_precisely(std::chrono::duration<double, std::milli> delay) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(delay);
  constexpr auto kSpin = std::chrono::milliseconds(1);
  if (delay > kSpin) std::this_thread::sleep_until(deadline - kSpin);
  while (clock::now() < deadline) {}
}

}  // namespace

BatchStream::BatchStream(std::shared_ptr<SampleSource> source, int batch, int workers, double delivery_delay_ms,
                         bool pin_memory)
    : impl_(std::make_unique<Impl>()), delivery_delay_(delivery_delay_ms) {
  const auto size = source->size();
  TB_CHECK_INPUT(static_cast<std::size_t>(batch) <= size, "matrix", "batch", "batch size ", batch,
                 " exceeds the dataset's ", size, " samples (raise dataset_options.samples)");
  auto dataset = SourceDataset(std::move(source)).map(StackBatch(pin_memory));
  auto options = torch::data::DataLoaderOptions()
                     .batch_size(static_cast<std::size_t>(batch))
                     .workers(static_cast<std::size_t>(workers))
                     .drop_last(true);
  impl_->loader = std::make_unique<Loader>(std::move(dataset), torch::data::samplers::RandomSampler(size), options);
  impl_->restart();
}

BatchStream::~BatchStream() = default;

void BatchStream::next(torch::data::Example<>& out) {
  // Advance lazily (the iterator fetches on ++), so the wait lands in this call's data_wait.
  if (!impl_->fresh) ++*impl_->it;
  impl_->fresh = false;
  if (*impl_->it == impl_->loader->end()) impl_->restart();
  impl_->fresh = false;
  out = std::move(**impl_->it);
  if (delivery_delay_.count() > 0) wait_precisely(delivery_delay_);
}

std::int64_t BatchStream::epochs_started() const { return impl_->epochs; }

}  // namespace tb
