#include <trainbench/results/history_store.hpp>

#include <chrono>
#include <ctime>

namespace tb {

bool is_postgresql_url(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::string redacted_history_location(const std::string& location) {
  if (!is_postgresql_url(location)) return location;
  // scheme://user:password@host...: the password is between the first ':' after the scheme and
  // the '@' that ends the user part.
  const std::size_t start = location.find("://") + 3;
  const std::size_t at = location.find('@', start);
  if (at == std::string::npos) return location;
  const std::size_t colon = location.find(':', start);
  if (colon == std::string::npos || colon > at) return location;
  return location.substr(0, colon + 1) + "***" + location.substr(at);
}

std::string commit_under_test(const RunResult& run) {
  const auto cut = run.environment.find("code_under_test");
  return cut != run.environment.end() && cut->is_object() ? environment_text(*cut, "commit") : "";
}

ScenarioFacts scenario_facts(const RunResult& run, const ScenarioResult& scenario) {
  ScenarioFacts f;
  f.contended = scenario.contended();
  if (run.provenance.ab_session)
    for (const PairedRatio& p : run.provenance.ab_session->paired)
      if (p.scenario == scenario.id) {
        f.paired_ratio = p.ratio;
        f.paired_low = p.low;
        f.paired_high = p.high;
      }
  f.gate_step_time_pct = scenario.params.gates.step_time_pct.value_or(0);
  f.gate_peak_memory_pct = scenario.params.gates.peak_memory_pct.value_or(0);
  return f;
}

std::string environment_text(const nlohmann::json& environment, const char* key) {
  if (!environment.is_object() || !environment.contains(key)) return "";
  const auto& v = environment[key];
  return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace tb
