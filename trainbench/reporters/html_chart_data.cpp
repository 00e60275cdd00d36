#include <trainbench/reporters/html_chart_data.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/reporters/report_views.hpp>

namespace tb {

namespace {

using nlohmann::json;

// Six significant digits keep the embedded data small and the golden file stable.
double round6(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

std::vector<const ScenarioResult*> ok_scenarios(const RunResult& run) {
  std::vector<const ScenarioResult*> out;
  for (const auto& s : run.scenarios)
    if (s.status == ScenarioStatus::ok) out.push_back(&s);
  return out;
}

json speedup_chart(const std::vector<const ScenarioResult*>& ok) {
  json labels = json::array(), values = json::array(), bars = json::array(),
       verdicts = json::array(), parity = json::array();
  for (const auto* s : ok) {
    const auto& c = s->comparison;
    if (!c || c->verdict == "baseline") continue;
    const auto& lp = s->loss_parity;
    labels.push_back(s->id);
    values.push_back(round6(c->speedup));
    bars.push_back({round6(c->ci_low), round6(c->ci_high)});
    verdicts.push_back(c->verdict);
    parity.push_back(!lp || lp->ok);
  }
  if (labels.empty()) return nullptr;
  return {{"id", "speedup"},          {"kind", "speedup"},
          {"title", "Speed-up vs baseline (median step time, 95% CI)"},
          {"caption", "Bars: baseline median / scenario median; whiskers: 95% CI; green faster, "
                      "red slower, grey same or noisy, amber: loss parity failed (not a win)."},
          {"labels", labels},         {"values", values},
          {"error_bars", bars},       {"verdicts", verdicts},
          {"loss_parity_ok", parity}, {"y_title", "speed-up (×)"}};
}

json phases_chart(const std::vector<const ScenarioResult*>& ok) {
  json labels = json::array();
  std::map<std::string, json> series;
  for (const auto& name : report::phase_order()) series[name] = json::array();
  for (const auto* s : ok) {
    if (s->phases.empty()) continue;
    labels.push_back(s->id);
    for (const auto& name : report::phase_order()) {
      double ms = 0;
      for (const auto& p : s->phases)
        if (p.name == name) ms = p.mean_s * 1e3;
      series[name].push_back(round6(ms));
    }
  }
  if (labels.empty()) return nullptr;
  json datasets = json::array();
  for (const auto& name : report::phase_order())
    datasets.push_back({{"label", name}, {"data", series[name]}});
  return {{"id", "phases"},   {"kind", "phases"}, {"title", "Phase breakdown (mean ms per step)"},
          {"labels", labels}, {"datasets", datasets}, {"y_title", "ms per optimizer step"}};
}

// Lines of samples/s against `axis` ("workers" or "batch") for scenarios equal in all else.
json scaling_chart(const std::vector<const ScenarioResult*>& ok, const std::string& axis) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<int, double>>> groups;
  for (const auto* s : ok) {
    const std::string label = series_label(s->params, axis);
    if (!groups.count(label)) order.push_back(label);
    groups[label].emplace_back(find_axis(axis)->value(s->params).get<int>(), round6(s->samples_per_s));
  }
  json datasets = json::array();
  for (const auto& label : order) {
    auto points = groups[label];
    if (points.size() < 2) continue;
    std::sort(points.begin(), points.end());
    json data = json::array();
    for (const auto& [x, y] : points) data.push_back({{"x", x}, {"y", y}});
    datasets.push_back({{"label", label}, {"data", data}});
  }
  if (datasets.empty()) return nullptr;
  const bool workers = axis == "workers";
  return {{"id", workers ? "throughput-workers" : "throughput-batch"},
          {"kind", "scaling"},
          {"title", workers ? "Throughput vs data-loader workers" : "Throughput vs batch size"},
          {"x_title", workers ? "workers" : "micro-batch size"},
          {"y_title", "samples/s"},
          {"datasets", datasets}};
}

std::vector<json> loss_charts(const std::vector<const ScenarioResult*>& ok) {
  std::vector<std::string> models;
  std::map<std::string, json> datasets;
  for (const auto* s : ok) {
    if (s->loss_curve.empty()) continue;
    const std::string& model = s->params.model;
    if (!datasets.count(model)) {
      models.push_back(model);
      datasets[model] = json::array();
    }
    json values = json::array();
    for (double v : s->loss_curve) values.push_back(round6(v));
    datasets[model].push_back(
        {{"label", s->id}, {"precision", to_string(s->params.precision)}, {"data", values}});
  }
  std::vector<json> charts;
  for (const auto& model : models)
    charts.push_back({{"id", "loss-" + model},
                      {"kind", "loss"},
                      {"title", "Loss per optimizer step: " + model + " (warm-up included)"},
                      {"x_title", "step"},
                      {"y_title", "loss"},
                      {"datasets", datasets[model]}});
  return charts;
}

}  // namespace

json html_chart_data(const RunResult& run) {
  const auto ok = ok_scenarios(run);
  json charts = json::array();
  for (json chart : {speedup_chart(ok), phases_chart(ok), scaling_chart(ok, "workers"),
                     scaling_chart(ok, "batch")})
    if (!chart.is_null()) charts.push_back(std::move(chart));
  for (auto& chart : loss_charts(ok)) charts.push_back(std::move(chart));
  return {{"run_id", run.run_id},
          {"matrix", run.matrix_name},
          {"baseline_id", run.baseline_id},
          {"charts", charts}};
}

}  // namespace tb
