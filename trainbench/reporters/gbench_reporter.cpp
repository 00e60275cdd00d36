#include <trainbench/reporters/gbench_reporter.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>

#include <trainbench/measure/system_info.hpp>

namespace tb {

namespace {

// The environment manifest's first present value among several spellings.
nlohmann::json env_value(const nlohmann::json& env, std::initializer_list<std::initializer_list<const char*>> paths) {
  for (const auto& path : paths) {
    const nlohmann::json* node = &env;
    bool found = true;
    for (const char* key : path) {
      if (!node->is_object() || !node->contains(key)) {
        found = false;
        break;
      }
      node = &node->at(key);
    }
    if (found && !node->is_null()) return *node;
  }
  return nullptr;
}

// The recorded host; a malformed section counts as absent (unknown), not as an error.
SystemInfo recorded_host(const nlohmann::json& env) {
  if (!env.is_object() || !env.contains("host") || !env.at("host").is_object()) return {};
  try {
    return env.at("host").get<SystemInfo>();
  } catch (const std::exception&) {  // a type error, or an integer out of range (json_integer.hpp)
    return {};
  }
}

// compare.py prints times with no decimals ("{:10.0f}") in the file's unit, so milliseconds
// would show a 4.19 ms step as "4"; microseconds keep three digits of it. One unit for every
// scenario and every run: compare.py only pairs benchmarks of the same time_unit.
constexpr const char* kTimeUnit = "us";
constexpr double kMicrosecondsPerSecond = 1e6;

// Nine significant digits: no "4.1878899999999994" noise from the seconds-to-ms product.
double round9(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return std::strtod(buf, nullptr);
}

// This process's CPU seconds per measured step (host_load.hpp's process_cpu_s over the measured
// steps), when the results carry it; results from before it was measured have none.
std::optional<double> cpu_s_per_step(const ScenarioResult& s) {
  if (!s.disturbance || !s.disturbance->process_cpu_s || s.measured_steps <= 0) return std::nullopt;
  return *s.disturbance->process_cpu_s / s.measured_steps;
}

}  // namespace

nlohmann::json GbenchReporter::to_gbench_json(const RunResult& run) {
  const auto& env = run.environment;
  auto host = env_value(env, {{"hostname"}, {"host_name"}});
  auto date = env_value(env, {{"timestamp"}, {"date"}, {"started_at"}});
  const SystemInfo machine = recorded_host(env);
  auto cpus = machine.num_cpus > 0
                  ? nlohmann::json(machine.num_cpus)
                  : env_value(env, {{"cpu", "logical_cores"}, {"cpu", "cores"}, {"cpu", "count"}, {"num_cpus"}});
  auto mhz =
      machine.mhz_per_cpu > 0 ? nlohmann::json(machine.mhz_per_cpu) : env_value(env, {{"cpu", "mhz"}, {"mhz_per_cpu"}});
  auto build = env_value(env, {{"build_type"}, {"build", "type"}});
  std::string build_type = "unknown";
  if (build.is_string()) build_type = build.get<std::string>() == "Debug" ? "debug" : "release";

  nlohmann::json context = {
      {"date", date.is_string() ? date : nlohmann::json("")},
      {"host_name", host.is_string() ? host : nlohmann::json("")},
      {"executable", "trainbench"},
      // Clamped before the cast: an edited file's 1e300 would be undefined behaviour.
      {"num_cpus", cpus.is_number() ? static_cast<int>(std::clamp(cpus.get<double>(), 0.0, 1e6)) : 0},
      // google/benchmark rounds cycles per second / 1e6 to a whole number.
      {"mhz_per_cpu", mhz.is_number() ? std::llround(std::clamp(mhz.get<double>(), 0.0, 1e9)) : 0},
      {"caches", machine.caches},
      {"load_avg", machine.load_avg},
      {"library_build_type", build_type},
      {"trainbench_run_id", run.run_id},
      {"trainbench_matrix", run.matrix_name}};
  if (machine.cpu_scaling_enabled) context["cpu_scaling_enabled"] = *machine.cpu_scaling_enabled;

  nlohmann::json benchmarks = nlohmann::json::array();
  int family = 0;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) continue;
    nlohmann::json b = {{"name", s.id},
                        {"family_index", family++},
                        {"per_family_instance_index", 0},
                        {"run_name", s.id},
                        {"run_type", "iteration"},
                        {"repetitions", 1},
                        {"repetition_index", 0},
                        {"threads", 1},
                        {"iterations", s.measured_steps},
                        {"real_time", round9(s.step_time_s.median * kMicrosecondsPerSecond)},
                        {"time_unit", kTimeUnit},
                        {"items_per_second", s.samples_per_s}};
    // compare.py reads a benchmark without cpu_time as not comparable: a run recorded before
    // CPU time was measured is left out there rather than given a CPU time it never measured.
    if (const auto cpu = cpu_s_per_step(s)) b["cpu_time"] = round9(*cpu * kMicrosecondsPerSecond);
    benchmarks.push_back(std::move(b));
  }
  return {{"context", context}, {"benchmarks", benchmarks}};
}

void GbenchReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  *ctx.out << to_gbench_json(run).dump(2) << '\n';
}

}  // namespace tb
