// Everything trainbench uses of c10d, PyTorch's distributed engine, behind trainbench's own
// types: the rendezvous store, process groups (Gloo on CPU, NCCL on CUDA), the parameter
// broadcast, and the Reducer that Python's DistributedDataParallel runs on (gradients all-reduced
// in buckets while backward still computes). Why one file: c10d's C++ API is internal and moves
// between releases, and the wheel ships no Gloo headers (Debian's libgloo-dev supplies them,
// headers only: Gloo itself is inside libtorch_cpu, so trainbench only ever holds the opaque
// device pointer c10d hands out). Only c10d_adapter.cpp includes c10d.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <trainbench/runner/rank_environment.hpp>

namespace tb::dist {

// A collective or the store failed: a peer died, hung past the timeout, or cannot be reached.
// The message says which rank, what it was doing and for how long it waited.
class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Group;

// This process's place among the ranks, and the store they all meet at. Messages between ranks
// that are not tensors (commands, per-rank results) go through the store as strings.
class World {
 public:
  // Connects to the store the launcher named. `timeout` bounds every collective and every wait.
  static std::shared_ptr<World> join(const RankEnvironment& env, std::chrono::milliseconds timeout);
  // A world of this process alone (an in-memory store): the reducer measured without peers.
  static std::shared_ptr<World> solo(std::chrono::milliseconds timeout);
  ~World();

  int rank() const { return env_.rank; }
  int size() const { return env_.world_size; }
  const RankEnvironment& environment() const { return env_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

  void put(const std::string& key, const std::string& value);
  // The value of `key` once some rank put it; DistributedError after `wait` (default: the timeout).
  std::string take(const std::string& key, std::optional<std::chrono::milliseconds> wait = std::nullopt);
  // nullopt when `key` is still unset after `wait`.
  std::optional<std::string> poll(const std::string& key, std::chrono::milliseconds wait);

  // A process group of ranks [0, size) on `device`'s backend (Gloo for CPU, NCCL for CUDA); every
  // rank below `size` calls this with the same `tag` at about the same time (a rendezvous).
  std::shared_ptr<Group> group(int size, c10::Device device, const std::string& tag);

 private:
  struct Impl;
  World(RankEnvironment env, std::chrono::milliseconds timeout, std::unique_ptr<Impl> impl);
  RankEnvironment env_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Impl> impl_;
};

// Ranks [0, size) of the world on one backend. Every call is a collective: all its ranks make it.
class Group {
 public:
  struct Impl;
  explicit Group(std::unique_ptr<Impl> impl);
  ~Group();
  int rank() const;
  int size() const;
  const std::string& backend() const;  // "gloo" or "nccl"

  // Rank 0's values of `tensors` (parameters, buffers) on every rank, coalesced into few messages.
  void broadcast_from_rank0(const std::vector<at::Tensor>& tensors);
  // Rank 0's `value` on every rank (a decision only rank 0 takes: stop the segment, stop the run).
  std::int64_t broadcast_decision(std::int64_t value);
  // Median seconds of one all-reduce of `bytes` (float32) after a warm-up, measured now.
  double time_allreduce(std::int64_t bytes, int repeats);

 private:
  friend class GradientReducer;
  std::unique_ptr<Impl> impl_;
};

// Communication of one synchronising backward, from the all-reduce hook's clock.
struct CommTiming {
  double exposed_s = 0;     // end of backward's compute (last bucket launched) -> backward returned
  double overlapped_s = 0;  // all-reduce time before that point (while backward still computed)
};

// DistributedDataParallel's gradient path for one module: buckets of about `bucket_mb` MiB (the
// first one 1 MiB, as DDP does), each all-reduced (averaged over the ranks) as soon as its
// gradients are ready, overlapped with the rest of backward.
class GradientReducer {
 public:
  GradientReducer(std::shared_ptr<Group> group, const std::vector<at::Tensor>& parameters, double bucket_mb);
  ~GradientReducer();

  // Around the micro-batch whose backward synchronises (the last of an optimizer step; the
  // others accumulate locally, DDP's no_sync): before its forward, then before its backward.
  void before_sync_forward();
  void before_sync_backward();
  // Right after that backward returned. On CUDA the host cannot see NCCL's stream-ordered work,
  // so the split is not measured there (zeros; the step time still includes the communication).
  CommTiming after_sync_backward();

  std::int64_t buckets() const;
  std::int64_t gradient_bytes() const { return gradient_bytes_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::int64_t gradient_bytes_ = 0;
};

}  // namespace tb::dist
