#include <trainbench/matrix/precision_table.hpp>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace tb {

namespace {

// Chart colours come from GitHub's palette, one hue per mode.
constexpr std::array<PrecisionDefinition, kPrecisionCount> kPrecisions = {{
    {.precision = Precision::fp32,
     .name = "fp32",
     .description = "IEEE float32 everywhere; TF32 explicitly off",
     .autocast = false,
     .reduced_dtype = ReducedDtype::none,
     .tf32_math = false,
     .grad_scaler = false,
     .cpu_unsupported = nullptr,
     .min_cuda_major = 0,
     .cuda_requirement = nullptr,
     .datasheet_peak = DatasheetPeak::fp32,
     .datasheet_label = "fp32",
     .chart_colour = "#0969da",
     .loss_reference = true},
    {.precision = Precision::tf32,
     .name = "tf32",
     .description = "float32 tensors; CUDA tensor cores may round matmul/conv inputs to TF32",
     .autocast = false,
     .reduced_dtype = ReducedDtype::none,
     .tf32_math = true,
     .grad_scaler = false,
     .cpu_unsupported = "TF32 is a CUDA tensor-core mode; no CPU equivalent",
     .min_cuda_major = 0,
     .cuda_requirement = nullptr,
     .datasheet_peak = DatasheetPeak::tf32,
     .datasheet_label = "tf32",
     .chart_colour = "#8250df",
     .loss_reference = false},
    // CPU autocast accepts float16 since torch 2.4, but it is not a CPU training mode: without
    // AVX512-FP16/AMX-FP16 most CPU float16 kernels convert to float32 and back, and fp16 needs
    // loss scaling that bf16 does not. Measuring it would benchmark conversions.
    {.precision = Precision::amp_fp16,
     .name = "amp_fp16",
     .description = "autocast to float16 around forward + loss, with a GradScaler",
     .autocast = true,
     .reduced_dtype = ReducedDtype::float16,
     .tf32_math = false,
     .grad_scaler = true,
     .cpu_unsupported = "float16 autocast is not a meaningful CPU training mode (CPU float16 kernels "
                        "mostly compute in float32 and fp16 needs loss scaling); use amp_bf16 on CPU",
     .min_cuda_major = 0,
     .cuda_requirement = nullptr,
     .datasheet_peak = DatasheetPeak::tensor16,
     .datasheet_label = "fp16",
     .chart_colour = "#bc4c00",
     .loss_reference = false},
    // LibTorch's CPU autocast casts matmul/conv/linear to bfloat16 (oneDNN kernels).
    {.precision = Precision::amp_bf16,
     .name = "amp_bf16",
     .description = "autocast to bfloat16 around forward + loss; no loss scaling needed",
     .autocast = true,
     .reduced_dtype = ReducedDtype::bfloat16,
     .tf32_math = false,
     .grad_scaler = false,
     .cpu_unsupported = nullptr,
     .min_cuda_major = 8,
     .cuda_requirement = "bfloat16 needs compute capability >= 8.0 (Ampere)",
     .datasheet_peak = DatasheetPeak::tensor16,
     .datasheet_label = "bf16",
     .chart_colour = "#1a7f37",
     .loss_reference = false},
}};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kPrecisions.size(); ++i)
    if (static_cast<std::size_t>(kPrecisions[i].precision) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kPrecisions: one entry per Precision, in enum order");

}  // namespace

std::span<const PrecisionDefinition> precision_table() { return kPrecisions; }

const PrecisionDefinition& definition(Precision p) {
  const auto i = static_cast<std::size_t>(p);
  if (i >= kPrecisions.size()) throw std::out_of_range("precision without a table entry");
  return kPrecisions[i];
}

const char* to_string(Precision p) { return definition(p).name; }

std::optional<Precision> parse_precision(const std::string& s) {
  for (const auto& d : kPrecisions)
    if (s == d.name) return d.precision;
  return std::nullopt;
}

const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& d : kPrecisions) all.emplace_back(d.name);
    return all;
  }();
  return names;
}

const char* to_string(ReducedDtype d) {
  switch (d) {
    case ReducedDtype::float16: return "float16";
    case ReducedDtype::bfloat16: return "bfloat16";
    case ReducedDtype::none: break;
  }
  return "float32";
}

const char* matmul_operands(Precision p) {
  const auto& d = definition(p);
  if (d.reduced_dtype != ReducedDtype::none) return to_string(d.reduced_dtype);
  return d.tf32_math ? "tf32" : "float32";
}

Precision loss_reference_precision() {
  const auto it = std::find_if(kPrecisions.begin(), kPrecisions.end(),
                               [](const PrecisionDefinition& d) { return d.loss_reference; });
  return it->precision;
}

}  // namespace tb
