// Measured matmul peak of this device at a precision: the denominator of MFU when the datasheet
// (a fallback) may not match real clocks, power limits or a CPU.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/capacity/peak_result.hpp>
#include <trainbench/matrix/scenario.hpp>

namespace tb::capacity {

struct PeakOptions {
  // Sizes to sweep, measured smallest first; empty: the device's defaults (CPU 256, 512, 1024,
  // 1536: small sizes are what a small model's step runs, and an emulated bf16 is fastest there;
  // CUDA 4096, 8192, 16384).
  std::vector<int> sizes;
  // Total time for the timed rounds (warm-up comes on top: ~50 ms per size, at least 2 calls).
  double budget_s = 3.0;
  // Timed blocks per size, at least: the rounds go on until this many are done and, after
  // that, until the budget is spent (kMaxRounds at most).
  int min_repeats = 5;
  // Bound on the whole probe, warm-ups included: a size whose first call says it would take the
  // probe past it is left out with the larger ones (PeakResult::stopped says so), and the timed
  // rounds end there once every size has 3 blocks. Emulated bf16 on a CPU without AVX-512 runs
  // an n=1536 matmul in ~7 s: unbounded, the sweep took minutes.
  double max_s = 10.0;
};

// Times the kernels the precision trains with, for every size: n x n matmuls (a = b x c into a
// preallocated output) for fp32 and tf32; for the autocast modes an autocast Linear layer's
// forward and backward on n x n operands (float32 input and weight cast by autocast, 3 matmuls:
// 6 n^3 FLOPs a call), because a plain bf16 matmul is not what autocast runs: on a CPU without
// native bf16 the plain matmul ran at 1 GFLOP/s while autocast training reached 2.8 (MFU 242%).
// A warm-up per size,
// then rounds that time one block per size in turn (interleaved, so a burst of load elsewhere
// hits all sizes alike), each block lasting about budget_s / (sizes x min_repeats). The peak is
// the best size's MEDIAN block rate: a sustained rate, never one lucky sample.
//   precision  fp32: float32 with TF32 off; tf32: float32 with TF32 allowed (CUDA only);
//              amp_bf16 / amp_fp16: autocast to bfloat16 / float16 around the forward. On a
//              CPU these are real: oneDNN brgemm with AVX512-BF16 or AMX where the CPU has them,
//              emulated (converted to float32 around each kernel) where it has not.
//   device     cpu (std::chrono::steady_clock) or cuda (CUDA events on the current stream).
// Throws tb::ScenarioSkipped when the device or mode is unavailable (no GPU, tf32 on the CPU),
// std::invalid_argument for a size < 1 or a budget < 0. Restores the TF32 flag.
PeakResult measure_matmul_peak(DeviceKind device, Precision precision, const PeakOptions& options);

// One size (n > 0) or the default sweep (n = 0) within budget_s.
PeakResult measure_matmul_peak(DeviceKind device, Precision precision, int n = 0, double budget_s = 3.0);

// "matmul n=8192 bfloat16 on cuda" (PeakFlops::detail in utilization.hpp).
std::string describe(const PeakResult& peak);

}  // namespace tb::capacity
