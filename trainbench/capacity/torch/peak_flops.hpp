// Measured matmul peak of this device at a precision: the denominator of MFU when the datasheet
// (a fallback) may not match real clocks, power limits or a CPU.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/scenario.hpp>

namespace tb::capacity {

// One matrix size of the sweep: the rates of its timed blocks (one block = a group of
// back-to-back matmuls, timed as a whole).
struct PeakSizeResult {
  int n = 0;                     // square matrix size
  double median_flops_per_s = 0;  // median over the blocks
  double min_flops_per_s = 0;     // slowest block
  double max_flops_per_s = 0;     // fastest block
  int blocks = 0;                 // timed blocks (repeats)
  int matmuls_per_block = 1;
};

struct PeakResult {
  double flops_per_s = 0;  // the best size's median block rate: 2 n^3 / median_s
  int n = 0;               // that size
  std::string dtype;       // "float32", "tf32", "bfloat16", "float16"
  std::string device;      // "cpu" or "cuda"
  double median_s = 0;     // median time of one n x n matmul at the best size
  int samples = 0;         // timed blocks behind that median
  int matmuls_per_sample = 1;  // matmuls per timed block at the best size
  int threads = 0;             // intra-op threads (at::get_num_threads) during the measurement
  // Spread of the best size's blocks: min/max rate and (max - min) / median.
  double min_flops_per_s = 0, max_flops_per_s = 0, rel_spread = 0;
  std::vector<PeakSizeResult> sizes;  // every size measured, in the order given
};

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

// {"flops_per_s","n","dtype","device","median_s","samples","matmuls_per_sample","threads",
//  "min_flops_per_s","max_flops_per_s","rel_spread","sizes":[{"n","median_flops_per_s",
//  "min_flops_per_s","max_flops_per_s","blocks","matmuls_per_block"}]}
void to_json(nlohmann::json& j, const PeakSizeResult& size);
void to_json(nlohmann::json& j, const PeakResult& peak);

}  // namespace tb::capacity
