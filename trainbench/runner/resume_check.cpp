#include <trainbench/runner/resume_check.hpp>

#include <trainbench/measure/comparison.hpp>

namespace tb {

std::vector<std::string> resume_refusals(const RunResult& run, const std::string& digest_now,
                                         const nlohmann::json& environment_now) {
  std::vector<std::string> reasons;
  if (run.matrix_digest != digest_now)
    reasons.push_back("matrix.digest: the matrix changed since the run (digest " +
                      (run.matrix_digest.empty() ? std::string("none") : run.matrix_digest) + ", now " + digest_now +
                      ")");
  for (const auto& d : environment_differences(run.environment, environment_now))
    reasons.push_back("environment: different hardware: " + d);
  return reasons;
}

bool needs_rerun(const ScenarioResult& scenario) {
  if (scenario.stop_reason == "in_progress") return true;
  return scenario.status != ScenarioStatus::ok && scenario.status != ScenarioStatus::skipped;
}

}  // namespace tb
