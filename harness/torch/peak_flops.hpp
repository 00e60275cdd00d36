// Measured matmul peak of this device at a precision: the denominator of MFU when the datasheet
// (a fallback) may not match real clocks, power limits or a CPU.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/scenario.hpp"

namespace tb::capacity {

struct PeakResult {
  double flops_per_s = 0;  // 2 n^3 / median_s
  int n = 0;               // square matrix size
  std::string dtype;       // "float32", "tf32", "bfloat16", "float16"
  std::string device;      // "cpu" or "cuda"
  double median_s = 0;     // median time of one n x n matmul
  int samples = 0;         // timed samples behind the median
  int matmuls_per_sample = 1;  // small matrices are timed in groups to beat timer overhead
};

// Times repeated n x n matmuls (a = b x c into a preallocated output) after a warm-up until
// budget_s is spent (at least 5 samples) and returns the median-based rate.
//   precision  fp32: float32 with TF32 off; tf32: float32 with TF32 allowed (CUDA only);
//              amp_bf16: bfloat16 operands; amp_fp16: float16 operands (as autocast would run
//              the matmuls). bf16/fp16 on the CPU are real but slow.
//   device     "cpu" (std::chrono::steady_clock) or "cuda" (CUDA events on the current stream).
//   n          0: 1024 on the CPU, 8192 on CUDA.
// Throws tb::ScenarioSkipped when the device or mode is unavailable (no GPU, tf32 on the CPU),
// std::invalid_argument for an unknown device or a negative n. Restores the TF32 flag.
PeakResult measure_matmul_peak(const std::string& device, Precision precision, int n = 0,
                               double budget_s = 1.0);

// "matmul n=8192 bfloat16 on cuda" (PeakFlops::detail in utilization.hpp).
std::string describe(const PeakResult& peak);

// {"flops_per_s","n","dtype","device","median_s","samples","matmuls_per_sample"}
void to_json(nlohmann::json& j, const PeakResult& peak);

}  // namespace tb::capacity
