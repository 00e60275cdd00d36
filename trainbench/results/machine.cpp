#include <trainbench/results/machine.hpp>

#include <map>

namespace tb {

std::vector<std::string> gpu_names(const nlohmann::json& env) {
  std::vector<std::string> names;
  if (!env.is_object() || !env.contains("gpu")) return names;
  const auto& g = env["gpu"];
  if (g.is_array()) {
    for (const auto& e : g) {
      if (e.is_string()) names.push_back(e.get<std::string>());
      else if (e.is_object()) names.push_back(e.value("name", std::string()));
    }
  } else if (g.is_object()) {
    const int count = g.value("count", 1);
    for (int i = 0; i < count; ++i) names.push_back(g.value("name", std::string()));
  } else if (g.is_string()) {
    names.push_back(g.get<std::string>());
  }
  return names;
}

std::string machine_label(const nlohmann::json& env) {
  const auto text = [&](const char* key, const char* sub) -> std::string {
    if (!env.is_object() || !env.contains(key)) return "";
    const nlohmann::json& at = env[key];
    if (sub && !(at.is_object() && at.contains(sub))) return "";
    const nlohmann::json& v = sub ? at[sub] : at;
    return v.is_string() ? v.get<std::string>() : "";
  };
  std::string label = text("cpu", "model");
  if (label.empty()) label = "unknown CPU";
  std::map<std::string, int> gpus;  // name -> count, in name order: the same GPUs, the same label
  for (const auto& name : gpu_names(env)) ++gpus[name];
  for (const auto& [name, count] : gpus) label += " + " + (count > 1 ? std::to_string(count) + "x " : "") + name;
  const std::string device = text("device", nullptr);
  return device.empty() ? label : label + " (" + device + ")";
}

}  // namespace tb
