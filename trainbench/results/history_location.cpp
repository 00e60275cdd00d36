#include <trainbench/results/history_location.hpp>

#include <cstdlib>
#include <system_error>

namespace tb {

namespace fs = std::filesystem;

namespace {
std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
}  // namespace

HistoryEnvironment HistoryEnvironment::current() {
  HistoryEnvironment env;
  env.trainbench_history = env_or_empty("TRAINBENCH_HISTORY");
  env.xdg_data_home = env_or_empty("XDG_DATA_HOME");
  env.home = env_or_empty("HOME");
  std::error_code ec;
  env.working_dir = fs::current_path(ec);
  return env;
}

std::string default_history_path(const HistoryEnvironment& env) {
  // The XDG base-directory spec ignores a relative XDG_DATA_HOME.
  if (!env.xdg_data_home.empty() && fs::path(env.xdg_data_home).is_absolute())
    return (fs::path(env.xdg_data_home) / "trainbench" / "history.sqlite").string();
  if (!env.home.empty()) return (fs::path(env.home) / ".local" / "share" / "trainbench" / "history.sqlite").string();
  return kLegacyHistoryPath;
}

HistoryLocation resolve_history_location(const std::optional<std::string>& option, const HistoryEnvironment& env) {
  if (option && !option->empty()) return {*option, ""};
  if (!env.trainbench_history.empty()) return {env.trainbench_history, ""};
  const std::string preferred = default_history_path(env);
  if (preferred == kLegacyHistoryPath) return {preferred, ""};
  std::error_code ec;
  const fs::path legacy = env.working_dir / kLegacyHistoryPath;
  if (fs::exists(legacy, ec) && !fs::exists(preferred, ec))
    return {kLegacyHistoryPath, std::string("history: using ") + kLegacyHistoryPath +
                                    " (the location of earlier versions); move it to " + preferred +
                                    " or set TRAINBENCH_HISTORY to keep one history for every folder"};
  return {preferred, ""};
}

}  // namespace tb
