// An endless stream of batches from a SampleSource through torch::data's DataLoader with
// worker threads (0 = load on the calling thread), restarting the epoch when it runs out.
// It can also play a slow input pipeline: every batch reaches the caller `delivery_delay_ms`
// later (the matrix's test-only test_delay_ms, a planted slowdown for gate tests). The delay is
// spent on the receiving thread after the loader handed the batch over, so the trainer charges
// it to data_wait and it is the same with any number of workers. With `pin_memory` the loader
// stacks each batch into page-locked memory (on its worker threads when it has them, as
// PyTorch's pin-memory thread does), so the copy to a CUDA device can be asynchronous.
#pragma once
#include <chrono>
#include <memory>

#include <torch/data/example.h>

#include <trainbench/training/torch/registry.hpp>

namespace tb {

class BatchStream {
 public:
  BatchStream(std::shared_ptr<SampleSource> source, int batch, int workers, double delivery_delay_ms = 0,
              bool pin_memory = false);
  ~BatchStream();
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  // The next batch; blocks while the workers have none ready, then for the delivery delay.
  // Moves the batch into `out` so the caller's storage is reused.
  void next(torch::data::Example<>& out);

  std::int64_t epochs_started() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::chrono::duration<double, std::milli> delivery_delay_;
};

}  // namespace tb
