// Model-FLOPs utilisation (MFU): achieved matmul FLOP/s over the device's peak, and the
// scenario capacity section that carries it.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <trainbench/capacity/flops.hpp>
#include <trainbench/capacity/projection.hpp>
#include <trainbench/matrix/scenario.hpp>
#include <trainbench/results/sections.hpp>

namespace tb::capacity {

inline constexpr const char* kPeakSourceMeasured = "measured";
inline constexpr const char* kPeakSourceTable = "table (fallback)";

// Training FLOP/s: per-sample (forward + backward) FLOPs times samples/s.
double achieved_flops_per_s(const FlopCount& per_sample, double samples_per_s);

// achieved / peak; 0 when the peak is unknown (<= 0).
double mfu(double achieved_flops_per_s, double peak_flops_per_s);

// What every report shows instead of an MFU above 100%.
inline constexpr const char* kMfuErrorCell = "error: >100% (peak under-measured)";

// An MFU above 1 is physically impossible: the training step cannot run its matmuls faster than
// the device's peak, so the peak was under-measured or the FLOP count is too high. `suspect`
// names the likely cause where the caller knows it (the probe and the step ran different
// kernels, e.g. an emulated bf16 whose speed depends on the shapes); empty: "the peak was
// timed while the machine was busy, or the FLOP count is too high". Returns the explanation
// stored as capacity.mfu_error, e.g. "MFU 107.31% exceeds 100%: ...", or "" when mfu <= 1.
std::string mfu_error(double mfu, const std::string& suspect = "");

struct PeakFlops {
  double flops_per_s = 0;
  std::string source;  // kPeakSourceMeasured or kPeakSourceTable
  std::string detail;  // e.g. "matmul n=8192 bf16" or "NVIDIA H100 SXM datasheet, dense bf16"
  // A measured peak's fastest timed block (0: unknown, or a datasheet figure): a step at or below
  // it ran no faster than the probe once did, so an MFU up to fastest / flops_per_s is the
  // probe's own spread, not an error.
  double fastest_flops_per_s = 0;
};

// Dense (no sparsity) datasheet peak for a GPU name as reported by the driver (e.g.
// "NVIDIA H200", "NVIDIA A100-SXM4-80GB") at a precision: amp_bf16/amp_fp16 -> 16-bit tensor
// cores, tf32 -> TF32 tensor cores, fp32 -> plain FP32. std::nullopt for unknown devices and
// CPUs. Only a FALLBACK for when no measured peak exists: real clocks and power limits differ.
std::optional<PeakFlops> datasheet_peak_flops(const std::string& device_name, Precision precision);

// The measured peak when there is one (> 0), else the datasheet fallback, else std::nullopt.
std::optional<PeakFlops> choose_peak(std::optional<double> measured_flops_per_s, const std::string& device_name,
                                     Precision precision, const std::string& measured_detail = "");

// A scenario's capacity section: achieved FLOP/s, and when a peak is known the peak, its source
// and the MFU, with mfu_error set when the step ran faster than the peak and than its fastest
// block (the MFU is kept for diagnosis; one within the probe's spread reads as "at peak").
ScenarioCapacitySection capacity_section(const FlopCount& per_sample, double samples_per_s,
                                         const std::optional<PeakFlops>& peak,
                                         const std::optional<Projection>& projection = std::nullopt,
                                         const std::string& mfu_suspect = "");

}  // namespace tb::capacity
