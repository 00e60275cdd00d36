#include <trainbench/training/torch/c10d_adapter.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <thread>
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/DeviceAccelerator.h>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#if defined(TRAINBENCH_TORCH_CUDA) && defined(USE_C10D_NCCL)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define TRAINBENCH_HAVE_NCCL 1
#endif

namespace tb::dist {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// c10d's errors carry a C++ backtrace in what(); a user needs the first line and who failed.
[[noreturn]] void rethrow(const char* doing, int rank) {
  try {
    throw;
  } catch (const c10::Error& e) {
    throw DistributedError(std::string("rank ") + std::to_string(rank) + ": " + doing + ": " +
                           e.what_without_backtrace());
  }
}

// DDP's first bucket is small, so the all-reduce starts early in backward.
constexpr std::size_t kFirstBucketBytes = 1024 * 1024;
// Broadcast of parameters and buffers in messages of at most this size (DDP's figure).
constexpr std::size_t kBroadcastBytes = 250 * 1024 * 1024;
// Launch and completion times of at most this many buckets per step are kept.
constexpr std::size_t kMaxBuckets = 512;

}  // namespace

struct World::Impl {
  c10::intrusive_ptr<c10d::Store> store;
};

World::World(RankEnvironment env, std::chrono::milliseconds timeout, std::unique_ptr<Impl> impl)
    : env_(std::move(env)), timeout_(timeout), impl_(std::move(impl)) {}
World::~World() = default;

std::shared_ptr<World> World::join(const RankEnvironment& env, std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  c10::intrusive_ptr<c10d::Store> base;
  try {
    if (!env.store_file.empty()) {
      base = c10::make_intrusive<c10d::FileStore>(env.store_file, env.world_size);
    } else {
      c10d::TCPStoreOptions options;
      options.port = static_cast<std::uint16_t>(env.master_port);
      options.isServer = env.rank == 0 && !env.store_hosted_elsewhere;
      options.waitWorkers = false;
      options.timeout = timeout;
      base = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
    }
    base->setTimeout(timeout);
  } catch (...) {
    rethrow(("cannot reach the rendezvous store " +
             (env.store_file.empty() ? env.master_addr + ":" + std::to_string(env.master_port) : env.store_file))
                .c_str(),
            env.rank);
  }
  // Under torchrun the store also holds the launcher's keys: ours live under their own prefix.
  impl->store = c10::make_intrusive<c10d::PrefixStore>("trainbench", base);
  return std::shared_ptr<World>(new World(env, timeout, std::move(impl)));
}

std::shared_ptr<World> World::solo(std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  impl->store = c10::make_intrusive<c10d::HashStore>();
  RankEnvironment env;
  env.launcher = "none";
  return std::shared_ptr<World>(new World(env, timeout, std::move(impl)));
}

void World::put(const std::string& key, const std::string& value) {
  try {
    impl_->store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
  } catch (...) { rethrow(("writing " + key + " to the store").c_str(), rank()); }
}

std::string World::take(const std::string& key, std::optional<std::chrono::milliseconds> wait) {
  const auto limit = wait.value_or(timeout_);
  if (const auto value = poll(key, limit)) return *value;
  throw DistributedError("rank " + std::to_string(rank()) + ": no answer for '" + key + "' after " +
                         std::to_string(limit.count() / 1000) +
                         " s: another rank died or hangs (raise --dist-timeout if it is only slow)");
}

std::optional<std::string> World::poll(const std::string& key, std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  try {
    // check() returns at once, so a long wait is many short ones (a store's own wait throws a
    // backtrace-laden error on timeout).
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
      if (impl_->store->check({key})) {
        const auto bytes = impl_->store->get(key);
        return std::string(bytes.begin(), bytes.end());
      }
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(pause);
    }
  } catch (...) { rethrow(("reading " + key + " from the store").c_str(), rank()); }
}

struct Group::Impl {
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
  std::string backend;
  c10::Device device{c10::kCPU};
  at::Tensor decision;  // one int64, reused for every decision
};

Group::Group(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Group::~Group() = default;
int Group::rank() const { return impl_->pg->getRank(); }
int Group::size() const { return impl_->pg->getSize(); }
const std::string& Group::backend() const { return impl_->backend; }

std::shared_ptr<Group> World::group(int size, c10::Device device, const std::string& tag) {
  auto impl = std::make_unique<Group::Impl>();
  impl->device = device;
  try {
    auto store = c10::make_intrusive<c10d::PrefixStore>("group/" + tag, impl_->store);
    impl->pg = c10::make_intrusive<c10d::ProcessGroup>(store, rank(), size);
    if (device.is_cuda()) {
#if defined(TRAINBENCH_HAVE_NCCL)
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = timeout_;
      auto backend = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank(), size, options);
      impl->pg->setDefaultBackend(c10d::ProcessGroup::BackendType::NCCL);
      impl->pg->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL, backend);
      impl->backend = "nccl";
#else
      throw DistributedError("this build of trainbench has no NCCL (LibTorch without CUDA)");
#endif
    } else {
      auto options = c10d::ProcessGroupGloo::Options::create_default(timeout_);
      auto backend = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank(), size, options);
      impl->pg->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
      impl->pg->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, backend);
      impl->backend = "gloo";
    }
  } catch (const DistributedError&) { throw; } catch (...) {
    rethrow(("forming a group of " + std::to_string(size) + " ranks").c_str(), rank());
  }
  impl->decision = at::zeros({1}, at::TensorOptions().dtype(at::kLong).device(device));
  return std::make_shared<Group>(std::move(impl));
}

void Group::broadcast_from_rank0(const std::vector<at::Tensor>& tensors) {
  const at::NoGradGuard no_grad;  // parameters are leaves that require grad: overwritten in place
  try {
    c10d::broadcast_coalesced(impl_->pg, tensors, kBroadcastBytes, 0);
  } catch (...) { rethrow("broadcasting the parameters", rank()); }
}

std::int64_t Group::broadcast_decision(std::int64_t value) {
  try {
    if (rank() == 0) impl_->decision.fill_(value);
    std::vector<at::Tensor> tensors{impl_->decision};
    impl_->pg->broadcast(tensors)->wait();
    return impl_->decision.item<std::int64_t>();
  } catch (...) { rethrow("waiting for rank 0's decision", rank()); }
}

double Group::time_allreduce(std::int64_t bytes, int repeats) {
  try {
    const std::int64_t elements = std::max<std::int64_t>(1, bytes / 4);
    std::vector<at::Tensor> tensors{at::ones({elements}, at::TensorOptions().dtype(at::kFloat).device(impl_->device))};
    const auto run = [&]() {
      impl_->pg->allreduce(tensors)->wait();
      if (impl_->device.is_cuda()) at::accelerator::synchronizeDevice(impl_->device.index());
    };
    run();  // connections and buffers are set up on first use
    std::vector<double> times;
    for (int i = 0; i < std::max(1, repeats); ++i) {
      const auto start = Clock::now();
      run();
      times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
  } catch (...) { rethrow("timing an all-reduce", rank()); }
}

// The launch and completion time of every bucket of the synchronising backward. Written by the
// autograd thread (launch) and the backend's thread (completion), read after backward returned.
struct BucketClock {
  std::array<std::atomic<std::int64_t>, kMaxBuckets> launched{}, done{};
  std::atomic<std::int64_t> last_launch{0};
  void reset() {
    for (auto& t : launched) t.store(0, std::memory_order_relaxed);
    for (auto& t : done) t.store(0, std::memory_order_relaxed);
    last_launch.store(0, std::memory_order_relaxed);
  }
};

namespace {

// DDP's default hook (average, then all-reduce), with the bucket's launch and completion timed.
class TimedAllReduceHook : public c10d::CommHookInterface {
 public:
  TimedAllReduceHook(c10::intrusive_ptr<c10d::ProcessGroup> pg, BucketClock* clock)
      : pg_(std::move(pg)), clock_(clock) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override {
    const std::size_t slot = std::min(bucket.getIndex(), kMaxBuckets - 1);
    const std::int64_t t = now_ns();
    clock_->launched[slot].store(t, std::memory_order_relaxed);
    clock_->last_launch.store(t, std::memory_order_relaxed);
    std::vector<at::Tensor> tensors{bucket.getBufferRef()};
    tensors[0].div_(pg_->getSize());
    auto future = pg_->allreduce(tensors)->getFuture();
    BucketClock* clock = clock_;
    future->addCallback(
        [clock, slot](c10::ivalue::Future&) { clock->done[slot].store(now_ns(), std::memory_order_relaxed); });
    return future;
  }
  at::Tensor parseHookResult(const c10::IValue& result) override {
    return c10d::detail::parseCppCommHookResult(result);
  }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  BucketClock* clock_;
};

}  // namespace

struct GradientReducer::Impl {
  std::shared_ptr<Group> group;
  std::vector<std::pair<std::int64_t, std::int64_t>> intervals;  // reserved: no allocation per step
  std::unique_ptr<BucketClock> clock = std::make_unique<BucketClock>();
  std::unique_ptr<c10d::Reducer> reducer;
};

GradientReducer::GradientReducer(std::shared_ptr<Group> group, const std::vector<at::Tensor>& parameters,
                                 double bucket_mb)
    : impl_(std::make_unique<Impl>()) {
  impl_->group = std::move(group);
  impl_->intervals.reserve(kMaxBuckets);
  std::vector<at::Tensor> params;
  for (const auto& p : parameters)
    if (p.requires_grad()) {
      params.push_back(p);
      gradient_bytes_ += p.numel() * static_cast<std::int64_t>(p.element_size());
    }
  const auto cap = static_cast<std::int64_t>(bucket_mb * 1024 * 1024);
  const std::vector<bool> sparse(params.size(), false);
  try {
    // As DistributedDataParallel builds it (find_unused_parameters off): one bucket for the first
    // iteration, whose backward records the order gradients arrive in; then rebuild_buckets()
    // re-buckets in that order, the first bucket small (1 MiB) so the all-reduce starts early, the
    // others up to the cap (an empty cap list keeps the Reducer on exactly that rule).
    auto buckets =
        std::get<0>(c10d::compute_bucket_assignment_by_size(params, {std::numeric_limits<std::size_t>::max()}, sparse));
    std::reverse(buckets.begin(), buckets.end());
    impl_->reducer = std::make_unique<c10d::Reducer>(
        params, std::move(buckets), impl_->group->impl_->pg, sparse, cap,
        /*find_unused_parameters=*/false, /*gradient_as_bucket_view=*/false,
        std::unordered_map<std::size_t, std::string>{}, static_cast<std::int64_t>(kFirstBucketBytes),
        /*skip_all_reduce_unused_params=*/false, /*use_python_reducer=*/false,
        /*bucket_bytes_cap_list=*/std::vector<std::int64_t>{});
    impl_->reducer->register_comm_hook(
        std::make_unique<TimedAllReduceHook>(impl_->group->impl_->pg, impl_->clock.get()));
  } catch (...) { rethrow("building the gradient reducer", impl_->group->rank()); }
}

GradientReducer::~GradientReducer() = default;

std::int64_t GradientReducer::buckets() const {
  return static_cast<std::int64_t>(impl_->reducer->get_grad_buckets(/*return_zero_tensors=*/true).size());
}

void GradientReducer::before_sync_forward() {
  // DDP rebuilds its buckets once, in gradient-arrival order, before the forward that follows the
  // first synchronising backward (a collective: every rank does it at the same step).
  impl_->reducer->rebuild_buckets();
  impl_->reducer->prepare_for_forward();
}

void GradientReducer::before_sync_backward() {
  impl_->clock->reset();
  static const std::vector<at::Tensor> kNoOutputs;  // find_unused_parameters is off
  impl_->reducer->prepare_for_backward(kNoOutputs);
}

CommTiming GradientReducer::after_sync_backward() {
  CommTiming t;
  if (impl_->group->backend() != "gloo") return t;
  const std::int64_t end = now_ns();
  const std::int64_t compute_end = impl_->clock->last_launch.load(std::memory_order_relaxed);
  if (compute_end == 0) return t;
  t.exposed_s = static_cast<double>(end - compute_end) * 1e-9;
  // The union of the buckets' [launch, done] intervals before compute ended: all-reduce that ran
  // while backward still computed. A completion not yet recorded counts as now.
  auto& intervals = impl_->intervals;
  intervals.clear();
  for (std::size_t i = 0; i < kMaxBuckets; ++i) {
    const std::int64_t start = impl_->clock->launched[i].load(std::memory_order_relaxed);
    if (start == 0) continue;
    const std::int64_t stop = impl_->clock->done[i].load(std::memory_order_relaxed);
    intervals.emplace_back(start, std::min(stop == 0 ? end : stop, compute_end));
  }
  std::sort(intervals.begin(), intervals.end());
  std::int64_t covered = 0, reach = 0;
  for (const auto& [start, stop] : intervals) {
    const std::int64_t from = std::max(start, reach);
    if (stop > from) covered += stop - from;
    reach = std::max(reach, stop);
  }
  t.overlapped_s = static_cast<double>(covered) * 1e-9;
  return t;
}

}  // namespace tb::dist
