#include "harness/torch/peak_flops.hpp"

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <c10/core/Event.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "harness/core/error.hpp"

namespace tb::capacity {
namespace {

using Clock = std::chrono::steady_clock;

// Sets the cuBLAS TF32 flag for the measurement and restores it afterwards.
class Tf32Flag {
 public:
  explicit Tf32Flag(bool allow) : previous_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(allow);
  }
  ~Tf32Flag() { at::globalContext().setAllowTF32CuBLAS(previous_); }
  Tf32Flag(const Tf32Flag&) = delete;
  Tf32Flag& operator=(const Tf32Flag&) = delete;

 private:
  bool previous_;
};

c10::ScalarType operand_type(Precision precision) {
  switch (precision) {
    case Precision::amp_bf16: return at::kBFloat16;
    case Precision::amp_fp16: return at::kHalf;
    case Precision::fp32:
    case Precision::tf32: return at::kFloat;
  }
  return at::kFloat;
}

const char* dtype_name(Precision precision) {
  switch (precision) {
    case Precision::amp_bf16: return "bfloat16";
    case Precision::amp_fp16: return "float16";
    case Precision::tf32: return "tf32";
    case Precision::fp32: return "float32";
  }
  return "float32";
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Times `group` matmuls per sample. CPU: wall clock around synchronous kernels. CUDA: events
// recorded on the current stream around each group; the host waits for the previous group only,
// so one group is always queued ahead and the GPU never idles between samples.
std::vector<double> time_samples(const at::Tensor& a, const at::Tensor& b, at::Tensor& out,
                                 bool cuda, int group, double budget_s) {
  constexpr int kMinSamples = 5;
  constexpr int kMaxSamples = 1000;
  std::vector<double> per_matmul_s;
  const auto start = Clock::now();
  auto spent = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  if (!cuda) {
    while ((static_cast<int>(per_matmul_s.size()) < kMinSamples || spent() < budget_s) &&
           static_cast<int>(per_matmul_s.size()) < kMaxSamples) {
      const auto t0 = Clock::now();
      for (int i = 0; i < group; ++i) at::mm_out(out, a, b);
      per_matmul_s.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / group);
    }
    return per_matmul_s;
  }
  const c10::Device device = a.device();
  const auto* impl = c10::impl::getDeviceGuardImpl(device.type());
  const c10::Stream stream = impl->getStream(device);
  std::vector<std::pair<c10::Event, c10::Event>> events;
  while ((static_cast<int>(events.size()) < kMinSamples || spent() < budget_s) &&
         static_cast<int>(events.size()) < kMaxSamples) {
    events.emplace_back(c10::Event(device.type(), c10::EventFlag::BACKEND_DEFAULT),
                        c10::Event(device.type(), c10::EventFlag::BACKEND_DEFAULT));
    events.back().first.record(stream);
    for (int i = 0; i < group; ++i) at::mm_out(out, a, b);
    events.back().second.record(stream);
    // Bound the queue (one group ahead) so the host clock, i.e. the budget, tracks the GPU.
    if (events.size() >= 2) events[events.size() - 2].second.synchronize();
  }
  torch::cuda::synchronize(device.index());
  for (const auto& [begin, end] : events)
    per_matmul_s.push_back(begin.elapsedTime(end) / 1e3 / group);
  return per_matmul_s;
}

}  // namespace

PeakResult measure_matmul_peak(const std::string& device, Precision precision, int n,
                               double budget_s) {
  if (device != "cpu" && device != "cuda")
    throw std::invalid_argument("measure_matmul_peak: device must be \"cpu\" or \"cuda\", got \"" +
                                device + "\"");
  if (n < 0) throw std::invalid_argument("measure_matmul_peak: n must be >= 0");
  const bool cuda = device == "cuda";
  if (cuda && !torch::cuda::is_available())
    throw ScenarioSkipped("matmul peak on cuda: no CUDA device available");
  if (!cuda && precision == Precision::tf32)
    throw ScenarioSkipped("matmul peak: TF32 is a CUDA tensor-core mode; no CPU equivalent");
  if (n == 0) n = cuda ? 8192 : 1024;

  const Tf32Flag tf32(precision == Precision::tf32);
  const auto options = at::TensorOptions()
                           .dtype(operand_type(precision))
                           .device(cuda ? c10::Device(c10::kCUDA) : c10::Device(c10::kCPU));
  const at::Tensor a = at::randn({n, n}, options);
  const at::Tensor b = at::randn({n, n}, options);
  at::Tensor out = at::empty({n, n}, options);

  // Warm-up (kernel selection, thread pool start, clocks ramping), then size the group so one
  // sample lasts ~2 ms: long enough for the timer, short enough for many samples.
  constexpr int kWarmup = 3;
  at::mm_out(out, a, b);  // first call: library handles, kernel selection
  if (cuda) torch::cuda::synchronize();
  auto t0 = Clock::now();
  for (int i = 0; i < kWarmup; ++i) at::mm_out(out, a, b);
  if (cuda) torch::cuda::synchronize();
  const double warm_each = std::chrono::duration<double>(Clock::now() - t0).count() / kWarmup;
  const int group = std::clamp(static_cast<int>(std::ceil(0.002 / std::max(warm_each, 1e-9))), 1, 1000);

  const std::vector<double> samples = time_samples(a, b, out, cuda, group, budget_s);
  PeakResult r;
  r.n = n;
  r.dtype = dtype_name(precision);
  r.device = device;
  r.median_s = median_of(samples);
  r.samples = static_cast<int>(samples.size());
  r.matmuls_per_sample = group;
  const double flops = 2.0 * static_cast<double>(n) * n * n;
  r.flops_per_s = r.median_s > 0 ? flops / r.median_s : 0;
  return r;
}

std::string describe(const PeakResult& peak) {
  return "matmul n=" + std::to_string(peak.n) + " " + peak.dtype + " on " + peak.device;
}

void to_json(nlohmann::json& j, const PeakResult& peak) {
  j = nlohmann::json{{"flops_per_s", peak.flops_per_s}, {"n", peak.n},
                     {"dtype", peak.dtype},             {"device", peak.device},
                     {"median_s", peak.median_s},       {"samples", peak.samples},
                     {"matmuls_per_sample", peak.matmuls_per_sample}};
}

}  // namespace tb::capacity
