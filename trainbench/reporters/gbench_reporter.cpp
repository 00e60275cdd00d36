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

// The repetitions' aggregates as google/benchmark computes them (sample standard deviation).
struct Moments {
  double mean = 0, median = 0, stddev = 0;
};
Moments moments(std::vector<double> v) {
  Moments m;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  m.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  for (double x : v) m.mean += x / static_cast<double>(n);
  double var = 0;
  for (double x : v) var += (x - m.mean) * (x - m.mean) / static_cast<double>(n - 1);
  m.stddev = std::sqrt(var);
  return m;
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
      std::optional<double> cpu_s_per_step;
    };
    std::vector<Repetition> reps;
    for (const auto& seg : s.segments)
      if (seg.steps > 0 && seg.median_s > 0)
        reps.push_back(
            {seg.steps, seg.median_s, seg.cpu_s ? std::optional<double>(*seg.cpu_s / seg.steps) : std::nullopt});
    const bool per_segment_cpu =
        !reps.empty() && std::all_of(reps.begin(), reps.end(), [](const Repetition& r) { return r.cpu_s_per_step; });
    if (reps.empty()) reps.push_back({s.measured_steps, s.step_time_s.median, cpu_s_per_step(s)});
    const int index = family++;
    // compare.py reads a benchmark without cpu_time as not comparable: a run recorded before
    // CPU time was measured is left out there rather than given a CPU time it never measured.
    // Each repetition carries its own segment's CPU time. Results whose segments lack it (older
    // ones) give the repetitions none: the scenario's average in every repetition had a
    // standard deviation of 0, and compare.py's U test called every A/A pair significant.
    const auto entry = [&](const std::string& name, const char* run_type, int repetition, int iterations,
                           double seconds, std::optional<double> cpu) {
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
    const bool one = reps.size() < 2;
    for (std::size_t r = 0; r < reps.size(); ++r)
      benchmarks.push_back(entry(s.id, "iteration", static_cast<int>(r), reps[r].steps, reps[r].median_s,
                                 one || per_segment_cpu ? reps[r].cpu_s_per_step : std::nullopt));
    if (one) continue;
    // The aggregates google/benchmark adds to repetitions, over the repetitions' times.
    std::vector<double> times, cpus;
    for (const auto& r : reps) {
      times.push_back(r.median_s);
      if (per_segment_cpu) cpus.push_back(*r.cpu_s_per_step);
    }
    const Moments wall = moments(times);
    const Moments cpu = per_segment_cpu ? moments(cpus) : Moments{};
    const auto cpu_figure = [&](double value) { return per_segment_cpu ? std::optional<double>(value) : std::nullopt; };
    const auto n = static_cast<int>(times.size());
    for (const char* name : {"mean", "median"}) {
      const bool mean = std::string(name) == "mean";
      auto b = entry(s.id + "_" + name, "aggregate", 0, n, mean ? wall.mean : wall.median,
                     cpu_figure(mean ? cpu.mean : cpu.median));
      b["aggregate_name"] = name;
      b["aggregate_unit"] = "time";
      b.erase("repetition_index");
      benchmarks.push_back(std::move(b));
    }
    auto sd = entry(s.id + "_stddev", "aggregate", 0, n, wall.stddev, cpu_figure(cpu.stddev));
    sd["aggregate_name"] = "stddev";
    sd["aggregate_unit"] = "time";
    sd.erase("repetition_index");
    sd.erase("items_per_second");
    benchmarks.push_back(std::move(sd));
  }
  return {{"context", context}, {"benchmarks", benchmarks}};
}

void GbenchReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  *ctx.out << to_gbench_json(run).dump(2) << '\n';
}

}  // namespace tb
