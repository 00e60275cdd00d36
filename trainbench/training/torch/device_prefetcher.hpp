// Pinned host batches copied to the device on a side stream one micro-batch ahead, so the
// copy of batch i+1 runs while batch i computes (the pin_memory axis; NVIDIA's data_prefetcher
// pattern). Without it a `non_blocking` copy from pageable memory is a synchronous one.
//
// Per micro-batch the trainer calls fetch() in its data_wait phase (the training thread waits
// for the loader's next pinned batch) and hand_out() in its h2d phase (the compute stream waits
// for the copy started one micro-batch earlier, and the copy of the batch just fetched starts).
// The very first call copies without overlap. CUDA only; the session skips pin_memory
// scenarios elsewhere.
#pragma once
#include <memory>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/MemoryFormat.h>
#include <torch/data/example.h>

#include <trainbench/training/torch/batch_stream.hpp>

namespace tb {

// `t` on `device` (non_blocking), a 4-d tensor in `image_format` (channels_last or preserve):
// the one copy rule of the trainer and the prefetcher.
at::Tensor copy_to_device(const at::Tensor& t, c10::Device device, c10::MemoryFormat image_format);

class DevicePrefetcher {
 public:
  // `input_format`: the memory format 4-d inputs get on the device (channels_last or preserve).
  DevicePrefetcher(BatchStream& data, c10::Device device, c10::MemoryFormat input_format);
  ~DevicePrefetcher();
  DevicePrefetcher(const DevicePrefetcher&) = delete;
  DevicePrefetcher& operator=(const DevicePrefetcher&) = delete;

  // The next host batch from the loader (blocks while it has none).
  void fetch();
  // The device batch copied since the previous call, ready for the current stream; starts
  // copying the batch fetch() just got.
  void hand_out(at::Tensor& input, at::Tensor& target);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tb
