#include <trainbench/measure/energy_result.hpp>

#include <trainbench/support/json_fields.hpp>

namespace tb {

void to_json(nlohmann::json& j, const EnergyResult& e) {
  if (!e.available) {
    j = {{"available", false}, {"reason", e.reason}};
    if (!e.source.empty()) j["source"] = e.source;
    return;
  }
  j = {{"available", true},
       {"source", e.source},
       {"scope", e.scope},
       {"joules", e.joules},
       {"steps", e.steps},
       {"joules_per_step", e.joules_per_step},
       {"samples_per_joule", e.samples_per_joule}};
}

void from_json(const nlohmann::json& j, EnergyResult& e) {
  e = EnergyResult{};
  e.available = field_flag(j, "available");
  e.source = field_text(j, "source");
  e.scope = field_text(j, "scope");
  e.reason = field_text(j, "reason");
  e.joules = field_number(j, "joules");
  e.steps = field_integer(j, "steps");
  e.joules_per_step = field_number(j, "joules_per_step");
  e.samples_per_joule = field_number(j, "samples_per_joule");
}

}  // namespace tb
