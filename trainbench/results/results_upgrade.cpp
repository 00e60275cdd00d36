#include <trainbench/results/results_upgrade.hpp>

#include <initializer_list>

#include <trainbench/results/results.hpp>

namespace tb {

namespace {

// Moves `keys` of `from` (when both are objects) into a new object at `into`[`to`].
void move_keys(nlohmann::json& from, nlohmann::json& into, const char* to, std::initializer_list<const char*> keys) {
  if (!into.is_object()) return;
  nlohmann::json moved = nlohmann::json::object();
  if (from.is_object())
    for (const char* key : keys)
      if (const auto it = from.find(key); it != from.end()) {
        moved[key] = std::move(*it);
        from.erase(key);
      }
  if (!into.contains(to)) into[to] = std::move(moved);
}

nlohmann::json version_1_to_2(nlohmann::json run) {
  if (!run.is_object()) return run;
  nlohmann::json no_extra = nlohmann::json::object();
  auto& extra = run.contains("extra") ? run["extra"] : no_extra;
  move_keys(extra, run, "provenance", {"shard", "resume", "ab_session", "merge", "ranks", "isolated"});
  if (const auto it = run.find("scenarios"); it != run.end() && it->is_array())
    for (auto& scenario : *it) {
      if (!scenario.is_object()) continue;
      auto& own = scenario.contains("extra") ? scenario["extra"] : no_extra;
      move_keys(own, scenario, "provenance", {"shard", "measured_in_resume"});
    }
  run["schema_version"] = 2;
  return run;
}

}  // namespace

nlohmann::json upgraded_results(nlohmann::json run, int from) {
  if (from <= 1) run = version_1_to_2(std::move(run));
  static_assert(kResultsSchemaVersion == 2, "a new version needs its step here");
  return run;
}

}  // namespace tb
