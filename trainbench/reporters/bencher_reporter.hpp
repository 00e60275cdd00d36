// Bencher Metric Format (BMF, https://bencher.dev/docs/reference/bencher-metric-format), so a
// team that tracks its benchmarks in Bencher feeds it trainbench runs with `bencher run --adapter
// json --file bencher.json`. One benchmark per ok scenario (its id), with the measures:
//   latency      median step time in nanoseconds (Bencher's built-in Latency unit), with the
//                scenario's 95% interval as lower_value / upper_value;
//   throughput   samples per second (the built-in Throughput, operations/s), its interval the
//                step time's inverted;
//   peak-memory  peak bytes (device, else the resident set), when measured; Bencher creates the
//                measure on first use.
// Bencher keeps the history and raises its own alerts; what trainbench knows beyond one run
// (paired ratios, change points) stays in `trainbench history`.
#pragma once
#include <nlohmann/json.hpp>

#include <trainbench/reporters/reporter.hpp>

namespace tb {

class BencherReporter final : public Reporter {
 public:
  std::string name() const override { return "bencher"; }
  std::string default_file_name() const override { return "bencher.json"; }

  static nlohmann::json to_bencher_json(const RunResult& run);

 private:
  void do_render(const RunResult& run, const ReportContext& ctx) override;
};

}  // namespace tb
