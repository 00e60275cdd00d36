#include <trainbench/reporters/bencher_reporter.hpp>

namespace tb {

nlohmann::json BencherReporter::to_bencher_json(const RunResult& run) {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok || s.step_time_s.median <= 0) continue;
    const Distribution& t = s.step_time_s;
    nlohmann::json measures = nlohmann::json::object();
    nlohmann::json latency = {{"value", t.median * 1e9}};
    // An interval that does not hold the median (not computed) is left out, not invented.
    const bool interval = t.ci_low > 0 && t.ci_low <= t.median && t.ci_high >= t.median;
    if (interval) {
      latency["lower_value"] = t.ci_low * 1e9;
      latency["upper_value"] = t.ci_high * 1e9;
    }
    measures["latency"] = latency;
    if (s.samples_per_s > 0) {
      nlohmann::json throughput = {{"value", s.samples_per_s}};
      if (interval) {  // samples/s = batch / step time: the slow end of the time is the low end here
        throughput["lower_value"] = s.samples_per_s * t.median / t.ci_high;
        throughput["upper_value"] = s.samples_per_s * t.median / t.ci_low;
      }
      measures["throughput"] = throughput;
    }
    if (const auto peak = peak_memory_bytes(s); peak > 0) measures["peak-memory"] = {{"value", peak}};
    doc[s.id] = measures;
  }
  return doc;
}

void BencherReporter::do_render(const RunResult& run, const ReportContext& ctx) {
  *ctx.out << to_bencher_json(run).dump(2) << '\n';
}

}  // namespace tb
