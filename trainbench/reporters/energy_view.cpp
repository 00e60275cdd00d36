#include <trainbench/reporters/energy_view.hpp>

#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

namespace {

// The scenario's energy when it holds a figure, else nullptr.
const EnergyResult* measured(const ScenarioResult& s) {
  return s.energy && s.energy->has_figures() ? &*s.energy : nullptr;
}

}  // namespace

std::string energy_cell(const ScenarioResult& s) {
  const auto* e = measured(s);
  if (!e) return "n/a";
  return significant(e->joules_per_step) + " J/step, " + significant(e->samples_per_joule) + " samples/J";
}

std::string energy_reason(const ScenarioResult& s) {
  if (measured(s)) return "";
  if (!s.energy || s.energy->reason.empty()) return "not recorded";
  return s.energy->reason;
}

std::string energy_line(const ScenarioResult& s) {
  const auto* e = measured(s);
  if (!e) return "energy: n/a (" + energy_reason(s) + ")";
  return "energy: " + energy_cell(s) + " (" + e->source + ": " + e->scope + ")";
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
