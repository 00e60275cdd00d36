#include <trainbench/results/scenario_status.hpp>

#include <stdexcept>

namespace tb {

namespace {
constexpr const char* kStatusNames[kScenarioStatusCount] = {"ok",       "skipped",     "failed", "oom",
                                                            "diverged", "interrupted", "crashed"};
}  // namespace

const char* to_string(ScenarioStatus s) { return kStatusNames[static_cast<int>(s)]; }

ScenarioStatus parse_status(const std::string& s) {
  for (int i = 0; i < kScenarioStatusCount; ++i)
    if (s == kStatusNames[i]) return static_cast<ScenarioStatus>(i);
  throw std::invalid_argument("unknown scenario status '" + s + "'");
}

}  // namespace tb
