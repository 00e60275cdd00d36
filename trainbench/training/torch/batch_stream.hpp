// An endless stream of batches from a SampleSource through torch::data's DataLoader with
// worker threads (0 = load on the calling thread), restarting the epoch when it runs out.
#pragma once
#include <memory>

#include <torch/data/example.h>

#include <trainbench/training/torch/registry.hpp>

namespace tb {

class BatchStream {
 public:
  BatchStream(std::shared_ptr<SampleSource> source, int batch, int workers);
  ~BatchStream();
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  // The next batch; blocks while the workers have none ready. Moves the batch into `out` so
  // the caller's storage is reused.
  void next(torch::data::Example<>& out);

  std::int64_t epochs_started() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tb
