#include <trainbench/capacity/projection.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include <trainbench/support/error.hpp>

namespace tb::capacity {

TargetSpec parse_target(const std::string& text, const std::string& field_for_errors) {
  std::istringstream in(text);
  std::string number, unit, rest;
  in >> number >> unit >> rest;
  TB_CHECK_INPUT(!number.empty() && rest.empty(), "command line", field_for_errors,
                 "expected '<number> samples|tokens|epochs', got '", text, "'");
  char* end = nullptr;
  const double amount = std::strtod(number.c_str(), &end);
  TB_CHECK_INPUT(end && *end == '\0' && std::isfinite(amount) && amount > 0, "command line", field_for_errors,
                 "expected a positive number, got '", number, "'");
  TargetSpec spec;
  spec.amount = amount;
  if (unit.empty() || unit == "samples" || unit == "sample") spec.unit = TargetSpec::Unit::samples;
  else if (unit == "tokens" || unit == "token") spec.unit = TargetSpec::Unit::tokens;
  else if (unit == "epochs" || unit == "epoch") spec.unit = TargetSpec::Unit::epochs;
  else
    TB_CHECK_INPUT(false, "command line", field_for_errors, "unknown unit '", unit,
                   "' (use samples, tokens or epochs)");
  return spec;
}

double target_samples(const TargetSpec& target, double tokens_per_sample, std::int64_t dataset_size,
                      const std::string& field_for_errors) {
  switch (target.unit) {
    case TargetSpec::Unit::samples: return std::ceil(target.amount);
    case TargetSpec::Unit::tokens:
      TB_CHECK_INPUT(tokens_per_sample > 0, "command line", field_for_errors,
                     "a token target needs a model with tokens per sample (a language model)");
      return std::ceil(target.amount / tokens_per_sample);
    case TargetSpec::Unit::epochs:
      TB_CHECK_INPUT(dataset_size > 0, "command line", field_for_errors,
                     "an epoch target needs a dataset of known size");
      return std::ceil(target.amount * static_cast<double>(dataset_size));
  }
  return 0;
}

Projection project(double target_samples, const Distribution& step_time_s, int effective_batch,
                   const ProjectionOptions& options) {
  if (!(step_time_s.median > 0)) throw std::invalid_argument("projection: median step time must be > 0");
  if (effective_batch < 1) throw std::invalid_argument("projection: effective batch must be >= 1");
  if (options.num_devices < 1) throw std::invalid_argument("projection: num_devices must be >= 1");
  Projection p;
  p.target_samples = target_samples;
  p.steps = static_cast<std::int64_t>(std::ceil(target_samples / effective_batch));
  const double steps = static_cast<double>(p.steps);
  p.time_s = steps * step_time_s.median;
  // A missing interval (e.g. too few steps) collapses onto the median rather than to zero.
  p.ci_low_s = steps * (step_time_s.ci_low > 0 ? step_time_s.ci_low : step_time_s.median);
  p.ci_high_s = steps * (step_time_s.ci_high > 0 ? step_time_s.ci_high : step_time_s.median);
  p.num_devices = options.num_devices;
  p.device_hours = p.time_s * options.num_devices / 3600.0;
  if (options.price_per_device_hour) {
    const double price = *options.price_per_device_hour;
    p.price_per_device_hour = price;
    p.cost = p.device_hours * price;
    p.cost_ci_low = p.ci_low_s * options.num_devices / 3600.0 * price;
    p.cost_ci_high = p.ci_high_s * options.num_devices / 3600.0 * price;
  }
  p.avg_power_watts = options.avg_power_watts;
  if (options.joules_per_step) {
    p.joules_per_step = *options.joules_per_step;
    p.energy_joules = *options.joules_per_step * steps * options.num_devices;
    p.energy_basis = "measured";
  } else if (options.avg_power_watts) {
    p.energy_joules = *options.avg_power_watts * options.num_devices * p.time_s;
    p.energy_basis = "avg_power_watts";
  }
  if (p.energy_joules) {
    constexpr double kJoulesPerKwh = 3.6e6;
    p.energy_kwh = *p.energy_joules / kJoulesPerKwh;
    if (options.price_per_kwh) {
      p.price_per_kwh = *options.price_per_kwh;
      p.energy_cost = *p.energy_kwh * *options.price_per_kwh;
    }
  }
  return p;
}

void to_json(nlohmann::json& j, const Projection& p) {
  j = nlohmann::json{{"target_samples", p.target_samples},
                     {"steps", p.steps},
                     {"time_s", p.time_s},
                     {"ci_low_s", p.ci_low_s},
                     {"ci_high_s", p.ci_high_s},
                     {"device_hours", p.device_hours},
                     {"num_devices", p.num_devices}};
  // Each optional on its own: a section read back from an edited file may hold a cost without
  // its price, and dereferencing the missing one would write garbage.
  const auto put = [&j](const char* key, const std::optional<double>& v) {
    if (v) j[key] = *v;
  };
  put("price_per_device_hour", p.price_per_device_hour);
  put("cost", p.cost);
  put("cost_ci_low", p.cost_ci_low);
  put("cost_ci_high", p.cost_ci_high);
  put("avg_power_watts", p.avg_power_watts);
  put("joules_per_step", p.joules_per_step);
  if (!p.energy_basis.empty()) j["energy_basis"] = p.energy_basis;
  put("energy_joules", p.energy_joules);
  put("energy_kwh", p.energy_kwh);
  put("price_per_kwh", p.price_per_kwh);
  put("energy_cost", p.energy_cost);
}

std::string format_duration(double seconds) {
  char buf[64];
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "n/a";
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
    return buf;
  }
  const auto total = static_cast<long long>(std::llround(seconds));
  const long long days = total / 86400, hours = total % 86400 / 3600, minutes = total % 3600 / 60;
  if (days > 0) std::snprintf(buf, sizeof buf, "%lldd %lldh", days, hours);
  else if (hours > 0) std::snprintf(buf, sizeof buf, "%lldh %lldm", hours, minutes);
  else std::snprintf(buf, sizeof buf, "%lldm %llds", minutes, total % 60);
  return buf;
}

}  // namespace tb::capacity
