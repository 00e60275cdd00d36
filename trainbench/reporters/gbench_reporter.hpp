// Google Benchmark-compatible JSON ({"context", "benchmarks"}), so google/benchmark's
// tools/compare.py can diff two trainbench runs. One "iteration" entry per ok scenario:
// iterations = measured steps, time_unit "us", real_time = median step time, cpu_time = this
// process's CPU time (every thread, the data loader's included) per measured step, left out for
// results recorded before it was measured; items_per_second = samples/s.
// The context's num_cpus, mhz_per_cpu, cpu_scaling_enabled, caches and load_avg describe the
// run's machine as captured at run start (environment["host"], trainbench/measure/system_info.hpp),
// never the machine re-rendering the report. A manifest without them (older runs) falls back to
// its cpu section for num_cpus/mhz_per_cpu, and what stays unknown is written as google
// benchmark writes unknown: 0, [], cpu_scaling_enabled left out.
#pragma once
#include <nlohmann/json.hpp>

#include <trainbench/reporters/reporter.hpp>

namespace tb {

class GbenchReporter final : public Reporter {
 public:
  std::string name() const override { return "gbench"; }
  std::string default_file_name() const override { return "gbench.json"; }

  // The document that do_render writes (exposed for tests and other tools).
  static nlohmann::json to_gbench_json(const RunResult& run);

 private:
  void do_render(const RunResult& run, const ReportContext& ctx) override;
};

}  // namespace tb
