#include <trainbench/reporters/energy_view.hpp>

#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

namespace {

// extra.energy when it holds a figure, else nullptr.
const nlohmann::json* measured(const ScenarioResult& s) {
  const auto it = s.extra.find("energy");
  if (it == s.extra.end() || !it->is_object() || !it->value("available", false)) return nullptr;
  const auto jps = it->find("joules_per_step"), spj = it->find("samples_per_joule");
  if (jps == it->end() || spj == it->end() || !jps->is_number() || !spj->is_number()) return nullptr;
  return &*it;
}

}  // namespace

std::string energy_cell(const ScenarioResult& s) {
  const auto* e = measured(s);
  if (!e) return "n/a";
  return significant(e->at("joules_per_step").get<double>()) + " J/step, " +
         significant(e->at("samples_per_joule").get<double>()) + " samples/J";
}

std::string energy_reason(const ScenarioResult& s) {
  if (measured(s)) return "";
  const auto it = s.extra.find("energy");
  if (it == s.extra.end() || !it->is_object()) return "not recorded";
  const std::string reason = it->value("reason", "");
  return reason.empty() ? "not recorded" : reason;
}

std::string energy_line(const ScenarioResult& s) {
  const auto* e = measured(s);
  if (!e) return "energy: n/a (" + energy_reason(s) + ")";
  return "energy: " + energy_cell(s) + " (" + e->value("source", "") + ": " + e->value("scope", "") + ")";
}

std::vector<std::string> energy_lines(const RunResult& run) {
  std::vector<std::string> lines;
  std::string reason;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) continue;
    if (measured(s)) lines.push_back(s.id + ": " + energy_cell(s));
    else if (reason.empty()) reason = energy_reason(s);
  }
  // Results from before energy was measured say nothing rather than "not recorded" every time.
  if (lines.empty() && !reason.empty() && reason != "not recorded") lines.push_back("n/a: " + reason);
  return lines;
}

std::string projected_energy(const capacity::Projection& p) {
  if (!p.energy_kwh) return "";
  std::string line = significant(*p.energy_kwh) + " kWh (" + (p.energy_basis.empty() ? "given" : p.energy_basis) + ")";
  if (p.energy_cost && p.price_per_kwh)
    line += ", cost " + significant(*p.energy_cost) + " at " + significant(*p.price_per_kwh) + "/kWh";
  return line;
}

}  // namespace tb::report
