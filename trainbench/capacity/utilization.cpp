#include <trainbench/capacity/utilization.hpp>

#include <array>
#include <cstdio>

namespace tb::capacity {
namespace {

// Dense tensor-core / FP32 peaks from NVIDIA datasheets, in TFLOP/s. The first matching
// pattern wins, so the more specific names come first.
struct DatasheetEntry {
  const char* name_pattern;
  const char* label;
  double bf16_fp16, tf32, fp32;
};
constexpr std::array<DatasheetEntry, 5> kDatasheet = {{
    {"H100 PCIe", "NVIDIA H100 PCIe", 756.0, 378.0, 51.0},
    {"H200", "NVIDIA H200 SXM", 989.0, 494.0, 67.0},
    {"H100", "NVIDIA H100 SXM", 989.0, 494.0, 67.0},
    {"GH200", "NVIDIA GH200", 989.0, 494.0, 67.0},
    {"A100", "NVIDIA A100", 312.0, 156.0, 19.5},
}};

double column(const DatasheetEntry& e, DatasheetPeak peak) {
  switch (peak) {
    case DatasheetPeak::tensor16: return e.bf16_fp16;
    case DatasheetPeak::tf32: return e.tf32;
    case DatasheetPeak::fp32: break;
  }
  return e.fp32;
}

}  // namespace

double achieved_flops_per_s(const FlopCount& per_sample, double samples_per_s) {
  return per_sample.total() * samples_per_s;
}

double mfu(double achieved, double peak) { return peak > 0 ? achieved / peak : 0.0; }

std::string mfu_error(double mfu, const std::string& suspect) {
  if (!(mfu > 1.0)) return "";
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.2f%%", mfu * 100.0);
  return std::string("MFU ") + pct + " exceeds 100%: a measurement error, not a utilisation; " +
         (suspect.empty()
              ? "the peak was under-measured (timed while the machine was busy?) or the FLOP count is too high"
              : suspect);
}

std::optional<PeakFlops> datasheet_peak_flops(const std::string& device_name, Precision precision) {
  for (const auto& e : kDatasheet) {
    if (device_name.find(e.name_pattern) == std::string::npos) continue;
    const PrecisionDefinition& mode = definition(precision);
    return PeakFlops{column(e, mode.datasheet_peak) * 1e12, kPeakSourceTable,
                     std::string(e.label) + " datasheet, dense " + mode.datasheet_label};
  }
  return std::nullopt;
}

std::optional<PeakFlops> choose_peak(std::optional<double> measured, const std::string& device_name,
                                     Precision precision, const std::string& measured_detail) {
  if (measured && *measured > 0) return PeakFlops{*measured, kPeakSourceMeasured, measured_detail};
  return datasheet_peak_flops(device_name, precision);
}

ScenarioCapacitySection capacity_section(const FlopCount& per_sample, double samples_per_s,
                                         const std::optional<PeakFlops>& peak,
                                         const std::optional<Projection>& projection, const std::string& mfu_suspect) {
  ScenarioCapacitySection c;
  c.flops_per_sample = per_sample;
  c.achieved_flops_per_s = achieved_flops_per_s(per_sample, samples_per_s);
  if (peak && peak->flops_per_s > 0) {
    c.peak_flops_per_s = peak->flops_per_s;
    c.peak_source = peak->source;
    c.peak_detail = peak->detail;
    c.mfu = mfu(c.achieved_flops_per_s, peak->flops_per_s);
    const bool within_spread = c.achieved_flops_per_s <= peak->fastest_flops_per_s;
    if (!within_spread) c.mfu_error = mfu_error(c.mfu, mfu_suspect);
  }
  c.projection = projection;
  return c;
}

}  // namespace tb::capacity
