// Every precision mode trainbench knows, in one table: its name in matrices, ids and results,
// what it means, and what the rest of trainbench derives from it (where it runs, autocast and its
// dtype, loss scaling, the TF32 switch, which datasheet peak and matmul operands utilization
// uses, the loss-parity reference, its chart colour). Adding a precision is one enum value, one
// entry in precision_table.cpp and, when it is neither autocast nor TF32, its switch in
// trainbench/training/torch/precision.cpp. Torch-free, so reports and the CLI can use it.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tb {

enum class Precision { fp32, tf32, amp_fp16, amp_bf16 };
// How many values Precision has; precision_table.cpp checks its table against it.
inline constexpr std::size_t kPrecisionCount = 4;

// The reduced floating-point type a mode computes in, named without LibTorch: autocast's dtype
// and the operand type of its matmul peak. `none`: float32 throughout.
enum class ReducedDtype { none, float16, bfloat16 };

// The column of a GPU datasheet that holds a mode's dense peak.
enum class DatasheetPeak { fp32, tf32, tensor16 };

struct PrecisionDefinition {
  Precision precision;
  const char* name;         // in matrices, scenario ids and results.json
  const char* description;  // one line, for people
  bool autocast;            // autocast to reduced_dtype around forward + loss
  ReducedDtype reduced_dtype;
  bool tf32_math;                // cuBLAS/cuDNN may round float32 matmul/conv inputs to TF32
  bool grad_scaler;              // loss scaling: float16's exponent range is too narrow for gradients
  const char* cpu_unsupported;   // why it is no CPU training mode (the skip message); nullptr: it is one
  int min_cuda_major;            // CUDA compute capability it needs (0: any GPU)
  const char* cuda_requirement;  // the skip message's start below min_cuda_major
  DatasheetPeak datasheet_peak;
  const char* datasheet_label;  // "<GPU> datasheet, dense <label>"
  const char* chart_colour;     // its colour in the HTML report's loss charts
  bool loss_reference;          // the mode other modes' loss curves are checked against (one only)
};

// The table, in enum order.
std::span<const PrecisionDefinition> precision_table();
const PrecisionDefinition& definition(Precision p);

const char* to_string(Precision p);
std::optional<Precision> parse_precision(const std::string& s);
const std::vector<std::string>& precision_names();

// "float16", "bfloat16"; "float32" for none.
const char* to_string(ReducedDtype d);

// The type a mode's matmuls take their operands in: "bfloat16", "float16", "tf32", "float32".
const char* matmul_operands(Precision p);

// The precision whose loss curve is the reference for loss parity (fp32).
Precision loss_reference_precision();

}  // namespace tb
