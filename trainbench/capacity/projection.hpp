// Time-to-train projection: how long (and how many device-hours, how much money and energy) a
// training target takes at the measured step time, with the median's 95% interval carried
// through.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <trainbench/measure/distribution.hpp>

namespace tb::capacity {

// A training target as the user states it: "1e9 samples", "2e12 tokens", "3 epochs".
struct TargetSpec {
  enum class Unit { samples, tokens, epochs };
  double amount = 0;
  Unit unit = Unit::samples;
};

// Parses "<number> <samples|tokens|epochs>" (singular accepted; no unit = samples); InputError
// naming `field_for_errors` on bad input.
TargetSpec parse_target(const std::string& text, const std::string& field_for_errors);

// The target in samples: tokens / tokens_per_sample or epochs * dataset_size (rounded up).
// InputError naming `field_for_errors` when the needed size is missing (<= 0).
double target_samples(const TargetSpec& target, double tokens_per_sample, std::int64_t dataset_size,
                      const std::string& field_for_errors = "target");

struct ProjectionOptions {
  // Devices the measured step occupies (the harness measures one). Only scales device-hours,
  // cost and energy; no multi-device speed-up is assumed.
  int num_devices = 1;
  std::optional<double> price_per_device_hour;  // currency units
  std::optional<double> avg_power_watts;        // average draw per device
  // Measured energy of one optimizer step on one device (energy_meter.hpp: one GPU, or one
  // node's CPU packages); preferred over avg_power_watts when both are known.
  std::optional<double> joules_per_step;
  std::optional<double> price_per_kwh;  // electricity, currency units per kWh
};

struct Projection {
  double target_samples = 0;
  std::int64_t steps = 0;              // ceil(target_samples / effective_batch)
  double time_s = 0;                   // steps * median step time
  double ci_low_s = 0, ci_high_s = 0;  // steps * the median's 95% interval
  double device_hours = 0;             // time_s * num_devices / 3600
  int num_devices = 1;
  std::optional<double> price_per_device_hour;
  std::optional<double> cost, cost_ci_low, cost_ci_high;  // device_hours * price
  std::optional<double> avg_power_watts;
  std::optional<double> energy_joules;  // see energy_basis
  // "measured": joules_per_step * steps * num_devices; "avg_power_watts": avg_power *
  // num_devices * time_s; "" when neither was given.
  std::string energy_basis;
  std::optional<double> joules_per_step;
  std::optional<double> energy_kwh;                  // energy_joules / 3.6e6
  std::optional<double> price_per_kwh, energy_cost;  // energy_kwh * price_per_kwh
};

// std::invalid_argument when the step time's median or the effective batch is not positive.
Projection project(double target_samples, const Distribution& step_time_s, int effective_batch,
                   const ProjectionOptions& options = {});

// scenario.extra["capacity"]["projection"]: {"target_samples","steps","time_s","ci_low_s",
// "ci_high_s","device_hours","num_devices"} plus "price_per_device_hour","cost","cost_ci_low",
// "cost_ci_high", "avg_power_watts", "joules_per_step", "energy_basis", "energy_joules",
// "energy_kwh", "price_per_kwh", "energy_cost" when known.
void to_json(nlohmann::json& j, const Projection& p);

// 42 -> "42.0 s", 5400 -> "1h 30m", 200000 -> "2d 7h" (for reports).
std::string format_duration(double seconds);

}  // namespace tb::capacity
