// A measured matmul peak (capacity/torch/peak_flops.hpp measures it): what results.json's run
// extra.peaks records per device and precision, readable without LibTorch.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb::capacity {

// One matrix size of the sweep: the rates of its timed blocks (one block = a group of
// back-to-back matmuls, timed as a whole).
struct PeakSizeResult {
  int n = 0;                      // square matrix size
  double median_flops_per_s = 0;  // median over the blocks
  double min_flops_per_s = 0;     // slowest block
  double max_flops_per_s = 0;     // fastest block
  int blocks = 0;                 // timed blocks (repeats)
  int matmuls_per_block = 1;
};

struct PeakResult {
  double flops_per_s = 0;      // the best size's median block rate: 2 n^3 / median_s
  int n = 0;                   // that size
  std::string dtype;           // "float32", "tf32", "bfloat16", "float16"
  std::string device;          // "cpu" or "cuda"
  double median_s = 0;         // median time of one n x n matmul at the best size
  int samples = 0;             // timed blocks behind that median
  int matmuls_per_sample = 1;  // matmuls per timed block at the best size
  int threads = 0;             // intra-op threads (at::get_num_threads) during the measurement
  // Spread of the best size's blocks: min/max rate and (max - min) / median.
  double min_flops_per_s = 0, max_flops_per_s = 0, rel_spread = 0;
  std::vector<PeakSizeResult> sizes;  // every size measured, in the order given
  // What was timed: "matmul" (n x n, the fp32/tf32 training kernels) or "autocast linear" (an
  // autocast Linear layer's forward and backward on n x n operands, 3 matmuls, the kernels and
  // casts an autocast step runs). "" in results of older releases (matmul).
  std::string kernel;
  // Why the sweep stopped before its largest sizes ("" when it measured them all), e.g.
  // "n=1536 left out: one call took 7.1 s, over the probe's 10 s bound".
  std::string stopped;
};

// {"flops_per_s","n","dtype","device","median_s","samples","matmuls_per_sample","threads",
//  "min_flops_per_s","max_flops_per_s","rel_spread","sizes":[{"n","median_flops_per_s",
//  "min_flops_per_s","max_flops_per_s","blocks","matmuls_per_block"}]}
void to_json(nlohmann::json& j, const PeakSizeResult& size);
void to_json(nlohmann::json& j, const PeakResult& peak);
// Lenient, as results.json's sections are (results/sections.hpp): a missing or mistyped field
// takes its default.
void from_json(const nlohmann::json& j, PeakSizeResult& size);
void from_json(const nlohmann::json& j, PeakResult& peak);

}  // namespace tb::capacity
