#include <trainbench/matrix/gate_thresholds.hpp>

namespace tb {

void GateThresholds::override_with(const GateThresholds& later) {
  if (later.step_time_pct) step_time_pct = later.step_time_pct;
  if (later.peak_memory_pct) peak_memory_pct = later.peak_memory_pct;
  if (later.loss_drift) loss_drift = later.loss_drift;
}

void to_json(nlohmann::json& j, const GateThresholds& g) {
  j = nlohmann::json::object();
  if (g.step_time_pct) j["step_time_pct"] = *g.step_time_pct;
  if (g.peak_memory_pct) j["peak_memory_pct"] = *g.peak_memory_pct;
  if (g.loss_drift) j["loss_drift"] = *g.loss_drift;
}

void from_json(const nlohmann::json& j, GateThresholds& g) {
  g = {};
  if (!j.is_object()) return;
  const auto read = [&](const char* key, std::optional<double>& field) {
    if (j.contains(key) && j[key].is_number()) field = j[key].get<double>();
  };
  read("step_time_pct", g.step_time_pct);
  read("peak_memory_pct", g.peak_memory_pct);
  read("loss_drift", g.loss_drift);
}

}  // namespace tb
