#include <trainbench/capacity/torch/peak_flops.hpp>

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/core/Event.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>
#include <torch/autograd.h>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/precision.hpp>

// Why the peak is measured this way. On a CPU whose cores are shared (2 vCPUs with a compiler
// beside the benchmark, load average 3-5), a multi-threaded GEMM ends every call at a barrier;
// when one of its threads has been descheduled, the call waits for that thread's next time
// slice. With CONFIG_HZ=250 the per-call time then snaps to whole 4 ms ticks: the median of 2 ms
// samples of a 2-thread bf16 n=1024 matmul reads 89.5 GFLOP/s (6 ticks) in some runs and 67.2
// GFLOP/s (8 ticks) in others while the fastest call runs at 155 GFLOP/s, and at n=256 the median
// call is 40x below one thread alone. Whether a median of short calls lands on the fast or a slow
// mode depends on how many ticks a call straddles, so it jumps by integer factors between runs
// (bf16 peaks of 1.92, 0.268 and 2.1 TFLOP/s, and MFUs above 100%, follow). bf16 is hit hardest
// because its calls are the shortest (oneDNN brg_matmul:avx512_core_bf16, 2-3x faster than MKL's
// fp32 sgemm at the same n, about one tick long); fp32 calls span many ticks and average the
// stalls out. Kernel choice is not the cause: ONEDNN_VERBOSE shows the same brgemm kernel at every
// size from 256 to 2048. The first call at a shape is slower (oneDNN JIT-compiles a primitive per
// shape: 1.2 ms against 0.25 ms for bf16 n=256 on one thread).
//
// Hence: a warm-up per size (first call, then >= 50 ms), several sizes interleaved in rounds (a
// burst of load elsewhere hits every size, not one), timed blocks that last tens of milliseconds
// on the CPU (many ticks each, so a stall costs a block a fraction, not a factor), at least
// min_repeats blocks per size, and the best size's MEDIAN block rate. Under the same load this
// reads 86-93 GFLOP/s for bf16 over four runs (blocks within 13-27% of each other, n=1536 best),
// where a median of single 2 ms calls gave 67.1-67.8. The spread is stored with the result so a
// noisy peak can be seen, and an MFU above 100% is reported as a measurement error, never as a
// utilisation (capacity::mfu_error).

namespace tb::capacity {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxRounds = 100;
constexpr double kWarmupS = 0.05;  // per size, after the first call

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

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// What one call runs: a matmul, or an autocast Linear layer's forward and backward.
struct Kernel {
  bool autocast = false;
  Precision precision = Precision::fp32;
  c10::DeviceType device = c10::kCPU;
  double flops(int n) const { return (autocast ? 6.0 : 2.0) * static_cast<double>(n) * n * n; }
};

// One size of the sweep: its operands, its group size and the per-call time of every block.
struct SizeRun {
  int n = 0;
  at::Tensor a, b, out;   // matmul: out = a x b
  at::Tensor x, w, grad;  // autocast linear: y = x w^T under autocast, y.backward(grad)
  int group = 1;
  std::vector<double> per_matmul_s;
};

void call(SizeRun& run, const Kernel& kernel) {
  if (!kernel.autocast) {
    at::mm_out(run.out, run.a, run.b);
    return;
  }
  at::Tensor y;
  {
    const AutocastScope autocast(kernel.precision, kernel.device);
    y = at::linear(run.x, run.w);
  }
  y.backward(run.grad);
  // Gradients are set, not summed, each call, as after an optimizer's zero_grad(set_to_none).
  run.x.mutable_grad().reset();
  run.w.mutable_grad().reset();
}

// Times `run.group` back-to-back calls and returns the seconds they took. CPU: wall clock
// around synchronous kernels. CUDA: events on the current stream around the group, then a wait
// for the end event, so the host clock (the budget) tracks the GPU.
double time_block(SizeRun& run, const Kernel& kernel, bool cuda) {
  if (!cuda) {
    const auto t0 = Clock::now();
    for (int i = 0; i < run.group; ++i) call(run, kernel);
    return seconds_since(t0);
  }
  const c10::Device device = run.a.device();
  const c10::Stream stream = c10::impl::getDeviceGuardImpl(device.type())->getStream(device);
  c10::Event begin(device.type(), c10::EventFlag::BACKEND_DEFAULT);
  c10::Event end(device.type(), c10::EventFlag::BACKEND_DEFAULT);
  begin.record(stream);
  for (int i = 0; i < run.group; ++i) call(run, kernel);
  end.record(stream);
  end.synchronize();
  return begin.elapsedTime(end) / 1e3;
}

void synchronize(bool cuda) {
  if (cuda) torch::cuda::synchronize();
}

// The first call (library handles, oneDNN primitive creation / cuBLAS heuristics, thread pool
// start); returns its seconds, an upper bound of a call's.
double first_call(SizeRun& run, const Kernel& kernel, bool cuda) {
  const auto t0 = Clock::now();
  call(run, kernel);
  synchronize(cuda);
  return seconds_since(t0);
}

// After the first call, at least two more calls and kWarmupS; returns the seconds of one call.
double warm_up(SizeRun& run, const Kernel& kernel, bool cuda) {
  const auto t0 = Clock::now();
  int calls = 0;
  while (calls < 2 || seconds_since(t0) < kWarmupS) {
    call(run, kernel);
    synchronize(cuda);
    ++calls;
  }
  return seconds_since(t0) / calls;
}

PeakSizeResult summarize(const SizeRun& run, const Kernel& kernel) {
  const double flops = kernel.flops(run.n);
  const auto [fastest, slowest] = std::minmax_element(run.per_matmul_s.begin(), run.per_matmul_s.end());
  PeakSizeResult s;
  s.n = run.n;
  s.median_flops_per_s = flops / median_of(run.per_matmul_s);
  s.min_flops_per_s = flops / *slowest;
  s.max_flops_per_s = flops / *fastest;
  s.blocks = static_cast<int>(run.per_matmul_s.size());
  s.matmuls_per_block = run.group;
  return s;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string joined_sizes(const std::vector<PeakSizeResult>& sizes) {
  std::string out;
  for (const auto& s : sizes) out += (out.empty() ? "" : "/") + std::to_string(s.n);
  return out;
}

}  // namespace

PeakResult measure_matmul_peak(DeviceKind device, Precision precision, const PeakOptions& options) {
  for (int n : options.sizes)
    if (n < 1) throw std::invalid_argument("measure_matmul_peak: sizes must be >= 1");
  if (!(options.budget_s >= 0)) throw std::invalid_argument("measure_matmul_peak: budget_s must be >= 0");
  const bool cuda = device == DeviceKind::cuda;
  if (cuda && !torch::cuda::is_available()) throw ScenarioSkipped("matmul peak on cuda: no CUDA device available");
  const PrecisionDefinition& mode = definition(precision);
  if (!cuda && mode.tf32_math) throw ScenarioSkipped(std::string("matmul peak: ") + mode.cpu_unsupported);
  std::vector<int> sizes = options.sizes;
  if (sizes.empty()) sizes = cuda ? std::vector<int>{4096, 8192, 16384} : std::vector<int>{256, 512, 1024, 1536};
  std::sort(sizes.begin(), sizes.end());  // smallest first: the time bound drops the largest
  const int repeats = std::max(1, options.min_repeats);
  const Kernel kernel{mode.autocast, precision, device_type_of(device)};
  const auto probe_start = Clock::now();

  const Tf32Flag tf32(mode.tf32_math);
  // autocast casts float32 operands itself; a plain matmul takes the mode's operand type.
  const auto tensor_options = at::TensorOptions()
                                  .dtype(kernel.autocast ? c10::ScalarType::Float : scalar_type(mode.reduced_dtype))
                                  .device(cuda ? c10::Device(c10::kCUDA) : c10::Device(c10::kCPU));
  std::vector<SizeRun> runs;
  std::string stopped;
  // What a size still costs once started: its first call, 2 warm-up calls and min_repeats blocks.
  const auto over_bound = [&](double call_s) {
    return !runs.empty() && seconds_since(probe_start) + call_s * (3 + repeats) > options.max_s;
  };
  const auto stop_at = [&](int n, double call_s, const char* how) {
    stopped = "n=" + std::to_string(n) + " and larger left out: one call " + how + " " + seconds_text(call_s) +
              ", over the probe's " + seconds_text(options.max_s) + " bound";
  };
  double previous_call_s = 0;
  for (int n : sizes) {
    // Known from the size before (a call grows as n^3): no need to run one to know it is too long.
    if (!runs.empty()) {
      const double ratio = static_cast<double>(n) / runs.back().n;
      if (const double estimate = previous_call_s * ratio * ratio * ratio; over_bound(estimate)) {
        stop_at(n, estimate, "would take");
        break;
      }
    }
    SizeRun run;
    run.n = n;
    try {
      if (kernel.autocast) {
        run.x = at::randn({n, n}, tensor_options).requires_grad_(true);
        run.w = at::randn({n, n}, tensor_options).mul_(1.0 / std::sqrt(n)).requires_grad_(true);
        run.grad = at::randn({n, n}, tensor_options);
      } else {
        run.a = at::randn({n, n}, tensor_options);
        run.b = at::randn({n, n}, tensor_options);
        run.out = at::empty({n, n}, tensor_options);
      }
    } catch (const c10::OutOfMemoryError&) {
      if (runs.empty() && n == sizes.back()) throw;
      continue;  // a size that does not fit next to the run's cached memory: measure the others
    }
    const double first_s = first_call(run, kernel, cuda);
    if (over_bound(first_s)) {
      stop_at(n, first_s, "took");
      break;
    }
    previous_call_s = first_s;
    runs.push_back(std::move(run));
  }
  if (runs.empty()) throw std::runtime_error("measure_matmul_peak: no matrix size fits in memory");

  // Group size: one block lasts about budget / (sizes x repeats), at least one call.
  const double block_s = options.budget_s / static_cast<double>(runs.size() * repeats);
  for (auto& run : runs) {
    const double each = warm_up(run, kernel, cuda);
    run.group = std::clamp(static_cast<int>(std::lround(block_s / std::max(each, 1e-9))), 1, 100000);
  }

  constexpr int kMinBlocks = 3;  // the fewest blocks a median is taken of under the time bound
  const auto start = Clock::now();
  for (int round = 0; round < repeats || (seconds_since(start) < options.budget_s && round < kMaxRounds); ++round) {
    if (round >= kMinBlocks && seconds_since(probe_start) > options.max_s) {
      if (stopped.empty()) stopped = "timed rounds cut at " + seconds_text(options.max_s) + ", the probe's bound";
      break;
    }
    for (auto& run : runs) run.per_matmul_s.push_back(time_block(run, kernel, cuda) / run.group);
  }

  PeakResult r;
  r.dtype = matmul_operands(precision);
  r.device = to_string(device);
  r.threads = at::get_num_threads();
  r.kernel = kernel.autocast ? "autocast linear" : "matmul";
  r.stopped = stopped;
  for (const auto& run : runs) r.sizes.push_back(summarize(run, kernel));
  const auto best = std::max_element(r.sizes.begin(), r.sizes.end(), [](const auto& x, const auto& y) {
    return x.median_flops_per_s < y.median_flops_per_s;
  });
  const auto& best_run = runs[static_cast<std::size_t>(best - r.sizes.begin())];
  r.n = best->n;
  r.median_s = median_of(best_run.per_matmul_s);
  r.flops_per_s = r.median_s > 0 ? kernel.flops(r.n) / r.median_s : 0;
  r.samples = best->blocks;
  r.matmuls_per_sample = best->matmuls_per_block;
  r.min_flops_per_s = best->min_flops_per_s;
  r.max_flops_per_s = best->max_flops_per_s;
  r.rel_spread = r.flops_per_s > 0 ? (r.max_flops_per_s - r.min_flops_per_s) / r.flops_per_s : 0;
  return r;
}

PeakResult measure_matmul_peak(DeviceKind device, Precision precision, int n, double budget_s) {
  if (n < 0) throw std::invalid_argument("measure_matmul_peak: n must be >= 0");
  PeakOptions options;
  if (n > 0) options.sizes = {n};
  options.budget_s = budget_s;
  return measure_matmul_peak(device, precision, options);
}

std::string describe(const PeakResult& peak) {
  const std::string kernel = peak.kernel.empty() ? "matmul" : peak.kernel;
  std::string text = kernel + " n=" + std::to_string(peak.n) + " " + peak.dtype + " on " + peak.device;
  if (peak.sizes.size() > 1) text += ", best median of n=" + joined_sizes(peak.sizes);
  if (peak.samples > 0)
    text += " (" + std::to_string(peak.samples) + " blocks, spread " +
            std::to_string(static_cast<int>(std::lround(peak.rel_spread * 100))) + "%)";
  if (!peak.stopped.empty()) text += "; " + peak.stopped;
  return text;
}

}  // namespace tb::capacity
