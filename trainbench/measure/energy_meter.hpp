// Energy of a scenario's timed steps (warm-up excluded): read a cumulative energy counter at the
// start and end of every measured segment, as the host-load meter does, never inside a step.
//
// Counters:
//  - NVIDIA GPUs: NVML's total-energy counter of the scenario's device
//    (nvmlDeviceGetTotalEnergyConsumption, millijoules; gpu_monitor.hpp loads NVML).
//  - CPUs: Intel RAPL through the powercap sysfs tree (ROOT/intel-rapl:N/energy_uj, also used
//    for AMD by recent kernels), summed over the CPU packages. It counts the whole packages, so
//    every process on them, not only this one. The counter wraps at max_energy_range_uj.
// Where neither is readable the result says why ("no /sys/class/powercap/intel-rapl:* ...",
// "permission denied ..."), and the reports print "n/a".
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/measure/energy_result.hpp>

namespace tb {

class NvmlLibrary;

// A cumulative energy counter.
class EnergyCounter {
 public:
  virtual ~EnergyCounter() = default;
  virtual std::string source() const = 0;  // "nvml" or "rapl"
  virtual std::string scope() const = 0;   // what it counts: "GPU 0", "CPU packages (whole machine)"
  // Joules since the counter was opened (monotonic: a wrap is unwound); nullopt when a read
  // failed.
  virtual std::optional<double> read_joules() = 0;
};

// The microjoules between two RAPL readings, across at most one wrap at `max_range_uj` (the
// counter runs 0 .. max_range_uj, then starts again at 0).
std::uint64_t rapl_delta_uj(std::uint64_t before, std::uint64_t after, std::uint64_t max_range_uj);

// An opened counter, or why there is none.
struct EnergyCounterChoice {
  std::unique_ptr<EnergyCounter> counter;
  std::string reason;  // empty when counter is set
};

// RAPL's package zones under `powercap_root` (ROOT/intel-rapl:N with a name "package-N"; every
// top-level zone when none is named so; never the sub-zones intel-rapl:N:M, which the package
// already includes).
EnergyCounterChoice open_rapl_counter(const std::filesystem::path& powercap_root = "/sys/class/powercap");
// The total-energy counter of GPU `index`.
EnergyCounterChoice open_nvml_counter(const NvmlLibrary& nvml, unsigned index);

// The counter for a scenario's device: "cuda" -> NVML of GPU `index`, anything else -> RAPL.
EnergyCounterChoice open_energy_counter(const std::string& device, unsigned index,
                                        const std::filesystem::path& powercap_root = "/sys/class/powercap");

// Accumulates over many begin()/end() segments; not thread-safe, one per scenario.
class EnergyMeter {
 public:
  explicit EnergyMeter(EnergyCounterChoice choice);
  void begin();
  // The segment ran `steps` optimizer steps of `samples` samples in all.
  void end(std::int64_t steps, double samples);
  void cancel() { open_.reset(); }  // the segment's steps were discarded
  EnergyResult result() const;

 private:
  std::unique_ptr<EnergyCounter> counter_;
  std::string reason_;
  std::optional<double> open_;
  double joules_ = 0, samples_ = 0;
  std::int64_t steps_ = 0;
};

}  // namespace tb
