#include <trainbench/reporters/scaling_tables.hpp>

#include <algorithm>

#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

namespace {

std::string share_cell(const std::optional<double>& share) { return share ? percent(*share, 1) + "%" : "-"; }

std::string gbps(double bytes_per_s) { return bytes_per_s > 0 ? significant(bytes_per_s / 1e9, 3) : "-"; }

std::string ms_or_dash(double seconds) { return seconds > 0 ? millis(seconds) : "-"; }

std::string micros(double seconds) { return significant(seconds * 1e6, 3) + " µs"; }

}  // namespace

TextTable data_parallel_table(const RunResult& run) {
  TextTable t;
  t.titles = {"scenario",   "ranks",           "scaling",       "global batch",  "samples/s",  "per rank",
              "efficiency", "exposed comm ms", "overlapped ms", "all-reduce ms", "busbw GB/s", "backend"};
  t.right = {false, true, false, true, true, true, true, true, true, true, true, false};
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok || !s.data_parallel) continue;
    const auto& dp = *s.data_parallel;
    const int n = std::max(1, dp.world_size);
    t.rows.push_back({s.id, std::to_string(n), dp.scaling.empty() ? "-" : dp.scaling,
                      dp.global_batch > 0 ? std::to_string(dp.global_batch) : "-", rate(s.samples_per_s),
                      rate(s.samples_per_s / n), share_cell(dp.efficiency), millis(dp.exposed_comm_s),
                      millis(dp.overlapped_comm_s), ms_or_dash(dp.allreduce_s), gbps(dp.busbw_bytes_per_s),
                      dp.backend.empty() ? "-" : dp.backend});
  }
  return t;
}

TextTable rank_table(const RunResult& run) {
  TextTable t;
  t.titles = {"scenario",          "rank", "host", "step ms", "samples/s", "compute ms", "exposed comm ms",
              "compute vs fastest"};
  t.right = {false, true, false, true, true, true, true, true};
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok || !s.data_parallel || s.data_parallel->ranks.empty()) continue;
    const auto& ranks = s.data_parallel->ranks;
    double fastest = 0;
    for (const auto& r : ranks)
      if (r.compute_s > 0 && (fastest == 0 || r.compute_s < fastest)) fastest = r.compute_s;
    for (const auto& r : ranks)
      t.rows.push_back({s.id, std::to_string(r.rank), r.host.empty() ? "-" : r.host, millis(r.median_step_s),
                        rate(r.samples_per_s), millis(r.compute_s), millis(r.exposed_comm_s),
                        fastest > 0 && r.compute_s > 0 ? signed_percent(r.compute_s / fastest - 1) : "-"});
  }
  return t;
}

TextTable projection_table(const ScalingModelSection& model) {
  TextTable t;
  t.titles = {"ranks",      "global batch", "compute ms", "all-reduce ms",
              "exposed ms", "step ms",      "samples/s",  "efficiency"};
  t.right = {true, true, true, true, true, true, true, true};
  for (const auto& p : model.points)
    t.rows.push_back({std::to_string(p.world_size), significant(p.global_batch, 6), millis(p.compute_s),
                      millis(p.allreduce_s), millis(p.exposed_comm_s), millis(p.step_s), rate(p.samples_per_s),
                      share_cell(p.efficiency)});
  return t;
}

TextTable projection_check_table(const ScalingModelSection& model) {
  TextTable t;
  t.titles = {"ranks", "scenario", "measured step ms", "projected step ms", "error", "note"};
  t.right = {true, false, true, true, true, false};
  for (const auto& c : model.checks)
    t.rows.push_back({std::to_string(c.world_size), c.id.empty() ? "-" : c.id, millis(c.measured_step_s),
                      millis(c.projected_step_s), signed_percent(c.relative_error), c.note.empty() ? "-" : c.note});
  return t;
}

std::string series_heading(const ScalingSeries& series) {
  return series.label + " (" + (series.scaling.empty() ? "weak" : series.scaling) + " scaling)";
}

std::vector<std::string> series_notes(const ScalingSeries& series) {
  std::vector<std::string> lines;
  if (!series.reference_id.empty())
    lines.push_back("efficiency = global samples/s / (ranks × " + rate(series.reference_samples_per_s) +
                    " samples/s of " + series.reference_id + ", world size 1)");
  if (series.ddp_overhead)
    lines.push_back("DDP's own overhead at world size 1: " + percent(*series.ddp_overhead, 1) + "% (" +
                    series.reducer_alone_id + " through the reducer alone)");
  if (const auto& m = series.model) {
    const auto& p = m->parameters;
    lines.push_back(m->label + ", not a measurement: calibrated on " + m->calibrated_on + "; bandwidth from " +
                    (m->topology.empty() ? "-" : m->topology) + ": busbw " + gbps(p.comm.busbw_bytes_per_s) +
                    " GB/s, alpha " + micros(p.comm.alpha_s) + " per hop; gradient " +
                    bytes(static_cast<std::int64_t>(p.gradient_bytes)) + "; overlap " + millis(p.overlap_s) + " ms" +
                    (m->overlap_lower_bound ? " (a lower bound: nothing was exposed)" : ""));
    lines.push_back(
        "model: step(n) = compute(n) + max(0, all-reduce(n) - overlap), all-reduce(n) = "
        "2(n-1)·alpha + 2(n-1)/n · bytes / busbw");
    if (!m->compute_assumption.empty()) lines.push_back("compute: " + m->compute_assumption);
    if (!m->efficiency_reference.empty()) lines.push_back("projected efficiency against " + m->efficiency_reference);
    if (!m->limits.empty()) {
      std::string limits;
      for (const auto& l : m->limits) limits += (limits.empty() ? "" : "; ") + l;
      lines.push_back("limits: " + limits);
    }
  }
  if (!series.note.empty()) lines.push_back(series.note);
  return lines;
}

}  // namespace tb::report
