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
  // Sizes to sweep; empty: the device's defaults (CPU 768, 1024, 1536; CUDA 4096, 8192, 16384).
  std::vector<int> sizes;
  // Total time for the timed rounds (warm-up comes on top: ~50 ms per size, at least 2 calls).
  double budget_s = 3.0;
  // Timed blocks per size, at least: the rounds go on until this many are done and, after
  // that, until the budget is spent (kMaxRounds at most).
  int min_repeats = 5;
};

// Times n x n matmuls (a = b x c into a preallocated output) for every size: a warm-up per size,
// then rounds that time one block per size in turn (interleaved, so a burst of load elsewhere
// hits all sizes alike), each block lasting about budget_s / (sizes x min_repeats). The peak is
// the best size's MEDIAN block rate: a sustained rate, never one lucky sample.
//   precision  fp32: float32 with TF32 off; tf32: float32 with TF32 allowed (CUDA only);
//              amp_bf16: bfloat16 operands; amp_fp16: float16 operands (as autocast would run
//              the matmuls). bf16/fp16 on the CPU are real (oneDNN brgemm with AVX512-BF16
//              where the CPU has it).
//   device     cpu (std::chrono::steady_clock) or cuda (CUDA events on the current stream).
// Throws tb::ScenarioSkipped when the device or mode is unavailable (no GPU, tf32 on the CPU),
// std::invalid_argument for a size < 1 or a budget < 0. Restores the TF32 flag.
PeakResult measure_matmul_peak(DeviceKind device, Precision precision, const PeakOptions& options);

// One size (n > 0) or the default sweep (n = 0) within budget_s.
PeakResult measure_matmul_peak(DeviceKind device, Precision precision, int n = 0, double budget_s = 3.0);

// "matmul n=8192 bfloat16 on cuda" (PeakFlops::detail in utilization.hpp).
std::string describe(const PeakResult& peak);

}  // namespace tb::capacity
