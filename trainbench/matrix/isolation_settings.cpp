#include <trainbench/matrix/isolation_settings.hpp>
#include <trainbench/support/join.hpp>

#include <trainbench/matrix/option_spec.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

namespace {

constexpr double kMaxHangTimeoutS = 7 * 24 * 3600;

// Steps a scenario can run at most (warm-up plus measured): a larger at_step could never fire.
constexpr long long kMaxCrashStep = static_cast<long long>(kMaxSteps) + kMaxWarmupSteps;

TestCrash parse_test_crash(const nlohmann::json& j, const std::string& file) {
  const auto fail = [&](const std::string& field, const std::string& message) {
    throw InputError(file, field, message);
  };
  if (!j.is_object()) fail("test_crash", "must be an object, got " + excerpt(j));
  for (const auto& [key, value] : j.items())
    if (key != "scenario" && key != "kind" && key != "at_step")
      fail("test_crash." + text_excerpt(key),
           "unknown key '" + text_excerpt(key) + "' (allowed: scenario, kind, at_step)");
  TestCrash c;
  if (!j.contains("scenario"))
    fail("test_crash.scenario", "is required (part of a scenario id; \"\" matches every scenario)");
  if (!j["scenario"].is_string()) fail("test_crash.scenario", "must be a string, got " + excerpt(j["scenario"]));
  c.scenario = j["scenario"].get<std::string>();
  if (!j.contains("kind")) fail("test_crash.kind", "is required (" + join(crash_kind_names()) + ")");
  const auto& kind = j["kind"];
  if (!kind.is_string()) fail("test_crash.kind", "must be a string, got " + excerpt(kind));
  try {
    c.kind = parse_crash_kind(kind.get<std::string>());
  } catch (const std::invalid_argument&) {
    fail("test_crash.kind", "unknown crash kind '" + text_excerpt(kind.get<std::string>()) +
                                "' (allowed: " + join(crash_kind_names()) + ")");
  }
  if (j.contains("at_step")) {
    const auto& step = j["at_step"];
    if (!step.is_number_integer()) fail("test_crash.at_step", "must be an integer, got " + excerpt(step));
    if (step.is_number_unsigned() ? step.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxCrashStep)
                                  : (step.get<long long>() < 0 || step.get<long long>() > kMaxCrashStep))
      fail("test_crash.at_step", "must be between 0 and " + std::to_string(kMaxCrashStep) + ", got " + excerpt(step));
    c.at_step = static_cast<int>(step.get<long long>());
  }
  return c;
}

}  // namespace

IsolationSettings parse_isolation_settings(const nlohmann::json& matrix, const std::string& file) {
  IsolationSettings s;
  if (!matrix.is_object()) return s;  // parse_matrix says what is wrong with it
  if (matrix.contains("isolate")) {
    const auto& v = matrix["isolate"];
    if (!v.is_boolean()) throw InputError(file, "isolate", "must be true or false, got " + excerpt(v));
    s.isolate = v.get<bool>();
  }
  if (matrix.contains("hang_timeout_s")) {
    const auto& v = matrix["hang_timeout_s"];
    if (!v.is_number() || v.get<double>() < 1 || v.get<double>() > kMaxHangTimeoutS)
      throw InputError(file, "hang_timeout_s",
                       "must be a number of seconds from 1 to " + std::to_string(static_cast<int>(kMaxHangTimeoutS)) +
                           " (a week), got " + excerpt(v));
    s.hang_timeout_s = v.get<double>();
  }
  if (matrix.contains("test_crash")) s.test_crash = parse_test_crash(matrix["test_crash"], file);
  return s;
}

LoadedMatrix load_matrix_with_isolation(const std::string& path, const MatrixParseOptions& options,
                                        const std::vector<std::string>& set_overrides) {
  const nlohmann::json j = apply_set_overrides(read_matrix_json(path), set_overrides);
  LoadedMatrix m{parse_matrix(j, path, options, set_overrides), {}};
  m.isolation = parse_isolation_settings(j, path);
  return m;
}

}  // namespace tb
