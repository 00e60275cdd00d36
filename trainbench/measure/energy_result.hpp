// The energy of a scenario's timed steps as EnergyMeter (energy_meter.hpp) measured it, and as
// results.json's scenario extra.energy records it.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tb {

struct EnergyResult {
  bool available = false;
  std::string source, scope;  // nvml | rapl, and what it counts ("GPU 0", "CPU packages 0, 1")
  std::string reason;         // why not available
  double joules = 0;          // over the measured steps
  std::int64_t steps = 0;
  double joules_per_step = 0;
  double samples_per_joule = 0;
  // A figure to print: measured, and both rates there (an edited file may lack them).
  bool has_figures() const { return available && joules_per_step > 0 && samples_per_joule > 0; }
};

// {"available":true,"source","scope","joules","steps","joules_per_step","samples_per_joule"} or
// {"available":false,"reason"} (with "source" when a counter was opened).
void to_json(nlohmann::json& j, const EnergyResult& e);
// Lenient, as results.json's sections are (results/sections.hpp).
void from_json(const nlohmann::json& j, EnergyResult& e);

}  // namespace tb
