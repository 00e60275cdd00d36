#include <trainbench/runner/torch/scenario_set.hpp>

#include <string>

namespace tb {

ScenarioResult interrupted_result(std::optional<ScenarioResult> measured, const ScenarioParams& params) {
  ScenarioResult r = measured ? std::move(*measured) : ScenarioResult{};
  r.id = scenario_id(params);
  r.params = params;
  r.status = ScenarioStatus::interrupted;
  r.stop_reason = "interrupted";
  r.message = (measured ? "interrupted after " + std::to_string(r.segments.size()) + " segment(s)"
                        : std::string("interrupted before it started")) +
              "; trainbench run --resume measures it again";
  return r;
}

}  // namespace tb
