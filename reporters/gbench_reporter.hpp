// Google Benchmark-compatible JSON ({"context", "benchmarks"}), so google/benchmark's
// tools/compare.py can diff two trainbench runs. One "iteration" entry per ok scenario:
// iterations = measured steps, real_time = cpu_time = median step time in ms,
// items_per_second = samples/s.
#pragma once
#include <nlohmann/json.hpp>

#include "reporters/reporter.hpp"

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
