#include <trainbench/training/torch/device_prefetcher.hpp>

#include <optional>
#include <stdexcept>

#if defined(TRAINBENCH_TORCH_CUDA)
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace tb {

at::Tensor copy_to_device(const at::Tensor& t, c10::Device device, c10::MemoryFormat image_format) {
  const auto format = t.dim() == 4 ? image_format : c10::MemoryFormat::Preserve;
  // Already there (every CPU scenario): what to() would return, without a trip through the dispatcher.
  if (t.device() == device && (format == c10::MemoryFormat::Preserve || t.is_contiguous(format))) return t;
  return t.to(device, t.scalar_type(), /*non_blocking=*/true, /*copy=*/false, format);
}

#if defined(TRAINBENCH_TORCH_CUDA)

struct DevicePrefetcher::Impl {
  BatchStream& data;
  c10::Device device;
  c10::MemoryFormat input_format;
  c10::cuda::CUDAStream copy_stream;
  torch::data::Example<> host;     // fetched, not yet copied
  torch::data::Example<> pending;  // on the device once `copied` has happened
  at::cuda::CUDAEvent copied;
  bool has_pending = false;

  // Starts copying `host` on the side stream; its device memory belongs to that stream's pool
  // until hand_out records the compute stream's use.
  void start_copy() {
    const c10::cuda::CUDAStreamGuard on_copy_stream(copy_stream);
    pending.data = copy_to_device(host.data, device, input_format);
    pending.target = copy_to_device(host.target, device, input_format);
    copied.record(copy_stream);
    has_pending = true;
  }
};

DevicePrefetcher::DevicePrefetcher(BatchStream& data, c10::Device device, c10::MemoryFormat input_format)
    : impl_(new Impl{data, device, input_format, c10::cuda::getStreamFromPool(false, device.index()), {}, {}, {}}) {
  if (!device.is_cuda()) throw std::invalid_argument("pinned-memory prefetching needs a CUDA device");
}

DevicePrefetcher::~DevicePrefetcher() = default;

void DevicePrefetcher::fetch() {
  if (!impl_->has_pending) {  // the first micro-batch: nothing is in flight yet
    impl_->data.next(impl_->host);
    impl_->start_copy();
  }
  impl_->data.next(impl_->host);
}

void DevicePrefetcher::hand_out(at::Tensor& input, at::Tensor& target) {
  const auto compute = c10::cuda::getCurrentCUDAStream(impl_->device.index());
  impl_->copied.block(compute);
  input = std::move(impl_->pending.data);
  target = std::move(impl_->pending.target);
  // Made on the copy stream, used on the compute stream: the allocator must not hand this
  // memory out again before the compute stream is done with it.
  input.record_stream(compute.unwrap());
  target.record_stream(compute.unwrap());
  impl_->start_copy();
}

#else

struct DevicePrefetcher::Impl {};

DevicePrefetcher::DevicePrefetcher(BatchStream&, c10::Device, c10::MemoryFormat) {
  throw std::invalid_argument("this build has no CUDA: no pinned-memory prefetching");
}
DevicePrefetcher::~DevicePrefetcher() = default;
void DevicePrefetcher::fetch() {}
void DevicePrefetcher::hand_out(at::Tensor&, at::Tensor&) {}

#endif

}  // namespace tb
