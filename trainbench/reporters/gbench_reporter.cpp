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
    // One repetition per measured segment (round), as google/benchmark writes
    // --benchmark_repetitions: compare.py's U test then has the run's own spread to work with.
    // Results without segments are one repetition of the whole measurement.
    struct Repetition {
      int steps;
      double median_s;
    };
    std::vector<Repetition> reps;
    for (const auto& seg : s.segments)
      if (seg.steps > 0 && seg.median_s > 0) reps.push_back({seg.steps, seg.median_s});
    if (reps.empty()) reps.push_back({s.measured_steps, s.step_time_s.median});
    const int index = family++;
    // compare.py reads a benchmark without cpu_time as not comparable: a run recorded before
    // CPU time was measured is left out there rather than given a CPU time it never measured.
    // CPU time is measured over all segments at once, so every repetition carries its average.
    const auto cpu = cpu_s_per_step(s);
    const auto entry = [&](const std::string& name, const char* run_type, int repetition, int iterations,
                           double seconds) {
      nlohmann::json b = {
          {"name", name},
          {"family_index", index},
          {"per_family_instance_index", 0},
          {"run_name", s.id},
          {"run_type", run_type},
          {"repetitions", static_cast<int>(reps.size())},
          {"repetition_index", repetition},
          {"threads", 1},
          {"iterations", iterations},
          {"real_time", round9(seconds * kMicrosecondsPerSecond)},
          {"time_unit", kTimeUnit},
          {"items_per_second",
           seconds == s.step_time_s.median ? s.samples_per_s : s.samples_per_s * s.step_time_s.median / seconds}};
      if (cpu) b["cpu_time"] = round9(*cpu * kMicrosecondsPerSecond);
      return b;
    };
    for (std::size_t r = 0; r < reps.size(); ++r)
      benchmarks.push_back(entry(s.id, "iteration", static_cast<int>(r), reps[r].steps, reps[r].median_s));
    if (reps.size() < 2) continue;
    // The aggregates google/benchmark adds to repetitions, over the repetitions' times.
    std::vector<double> times;
    for (const auto& r : reps) times.push_back(r.median_s);
    std::sort(times.begin(), times.end());
    const std::size_t n = times.size();
    const double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    double mean = 0;
    for (double t : times) mean += t / static_cast<double>(n);
    double var = 0;
    for (double t : times) var += (t - mean) * (t - mean) / static_cast<double>(n - 1);
    for (const auto& [name, value] : {std::pair{"mean", mean}, std::pair{"median", median}}) {
      auto b = entry(s.id + "_" + name, "aggregate", 0, static_cast<int>(n), value);
      b["aggregate_name"] = name;
      b["aggregate_unit"] = "time";
      b.erase("repetition_index");
      benchmarks.push_back(std::move(b));
    }
    auto sd = entry(s.id + "_stddev", "aggregate", 0, static_cast<int>(n), std::sqrt(var));
    sd["aggregate_name"] = "stddev";
    sd["aggregate_unit"] = "time";
    sd.erase("repetition_index");
    sd.erase("items_per_second");
    if (cpu) sd["cpu_time"] = 0.0;
    benchmarks.push_back(std::move(sd));
  }
  return {{"context", context}, {"benchmarks", benchmarks}};
}

void GbenchReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  *ctx.out << to_gbench_json(run).dump(2) << '\n';
}

}  // namespace tb
