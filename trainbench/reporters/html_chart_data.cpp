#include <trainbench/reporters/html_chart_data.hpp>

#include <trainbench/reporters/memory_timeline_view.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <string>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/reporters/loss_at_step.hpp>
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

// Scenarios drawn together in one small chart: one model, split by precision when a model has
// more scenarios than a small chart can show apart.
struct SeriesGroup {
  std::string name;
  std::vector<const ScenarioResult*> members;
};

constexpr std::size_t kMaxSeriesPerChart = 4;

std::vector<SeriesGroup> small_multiple_groups(const std::vector<const ScenarioResult*>& scenarios) {
  std::vector<SeriesGroup> models;
  for (const auto* s : scenarios) {
    auto it =
        std::find_if(models.begin(), models.end(), [&](const SeriesGroup& g) { return g.name == s->params.model; });
    if (it == models.end()) it = models.insert(models.end(), {s->params.model, {}});
    it->members.push_back(s);
  }
  std::vector<SeriesGroup> out;
  for (auto& model : models) {
    if (model.members.size() <= kMaxSeriesPerChart) {
      out.push_back(std::move(model));
      continue;
    }
    std::vector<SeriesGroup> split;
    for (const auto* s : model.members) {
      const std::string name = model.name + " · " + to_string(s->params.precision);
      auto it = std::find_if(split.begin(), split.end(), [&](const SeriesGroup& g) { return g.name == name; });
      if (it == split.end()) it = split.insert(split.end(), {name, {}});
      it->members.push_back(s);
    }
    for (auto& g : split) out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::string> split_id(const std::string& id) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t at; (at = id.find('/', from)) != std::string::npos; from = at + 1)
    parts.push_back(id.substr(from, at - from));
  parts.push_back(id.substr(from));
  return parts;
}

// Legend and axis labels: the parts of the ids that differ inside the group ("w0/a4/b16"),
// since the chart's title already names what they share; full ids go in tooltips.
std::vector<std::string> short_labels(const std::vector<const ScenarioResult*>& members) {
  std::vector<std::vector<std::string>> parts;
  for (const auto* s : members) parts.push_back(split_id(s->id));
  std::vector<std::string> out;
  for (std::size_t m = 0; m < parts.size(); ++m) {
    std::string label;
    for (std::size_t i = 0; i < parts[m].size(); ++i) {
      const bool shared = std::all_of(parts.begin(), parts.end(), [&](const auto& other) {
        return other.size() == parts[m].size() && other[i] == parts[m][i];
      });
      if (!shared) label += (label.empty() ? "" : "/") + parts[m][i];
    }
    // A lone scenario: everything but the model, which the title names.
    const std::string& id = members[m]->id;
    if (label.empty()) label = id.find('/') == std::string::npos ? id : id.substr(id.find('/') + 1);
    out.push_back(label);
  }
  return out;
}

// per_workload: several workloads, each against its own baseline (report::grouped_by_workload).
json speedup_chart(const std::vector<const ScenarioResult*>& ok, bool per_workload) {
  json ids = json::array(), values = json::array(), bars = json::array(), verdicts = json::array(),
       parity = json::array();
  std::vector<const ScenarioResult*> shown;
  for (const auto* s : ok) {
    const auto& c = s->comparison;
    if (!c || c->verdict == "baseline") continue;
    const auto& lp = s->loss_parity;
    shown.push_back(s);
    ids.push_back(s->id);
    values.push_back(round6(c->speedup));
    bars.push_back({round6(c->ci_low), round6(c->ci_high)});
    verdicts.push_back(c->verdict);
    parity.push_back(!lp || lp->ok);
  }
  if (shown.empty()) return nullptr;
  return {{"id", "speedup"},
          {"kind", "speedup"},
          {"title", per_workload ? "Speed-up vs its workload's baseline (median step time, 95% CI)"
                                 : "Speed-up vs baseline (median step time, 95% CI)"},
          {"caption", std::string(per_workload ? "Bars: the workload baseline's median / scenario median"
                                               : "Bars: baseline median / scenario median") +
                          "; whiskers: 95% CI; green faster, red slower, grey same or noisy, amber: loss "
                          "parity failed (not a win)."},
          {"labels", short_labels(shown)},
          {"ids", ids},
          {"values", values},
          {"error_bars", bars},
          {"verdicts", verdicts},
          {"loss_parity_ok", parity},
          {"y_title", "speed-up (×)"}};
}

// Per sample, not per optimizer step: scenarios with other batch sizes or accumulation counts
// do a different amount of work per step, so per-step bars would not be comparable.
json phases_chart(const std::vector<const ScenarioResult*>& ok) {
  json ids = json::array(), batches = json::array();
  std::vector<const ScenarioResult*> shown;
  std::map<std::string, json> series;
  for (const auto& name : report::phase_order()) series[name] = json::array();
  for (const auto* s : ok) {
    if (s->phases.empty()) continue;
    const double samples = std::max(1, s->params.effective_batch);
    shown.push_back(s);
    ids.push_back(s->id);
    batches.push_back(s->params.effective_batch);
    for (const auto& name : report::phase_order()) {
      double us = 0;
      for (const auto& p : s->phases)
        if (p.name == name) us = p.mean_s * 1e6 / samples;
      series[name].push_back(round6(us));
    }
  }
  if (shown.empty()) return nullptr;
  json datasets = json::array();
  for (const auto& name : report::phase_order()) datasets.push_back({{"label", name}, {"data", series[name]}});
  return {{"id", "phases"},
          {"kind", "phases"},
          {"title", "Phase breakdown (mean µs per sample)"},
          {"caption",
           "Each phase's mean time per optimizer step divided by the samples in that step "
           "(effective batch, shown in the tooltip), so scenarios with other batch sizes "
           "or accumulation counts compare."},
          {"labels", short_labels(shown)},
          {"ids", ids},
          {"effective_batch", batches},
          {"datasets", datasets},
          {"y_title", "µs per sample"}};
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

// One chart per small-multiple group of `scenarios`: `series(scenario)` gives a member's dataset
// (its short label and id are added), `chart(group name)` the chart around the group's datasets.
template <typename Series, typename Chart>
std::vector<json> small_multiples(const std::vector<const ScenarioResult*>& scenarios, Series series, Chart chart) {
  std::vector<json> charts;
  for (const auto& group : small_multiple_groups(scenarios)) {
    const auto labels = short_labels(group.members);
    json datasets = json::array();
    for (std::size_t i = 0; i < group.members.size(); ++i) {
      json dataset = series(*group.members[i]);
      dataset["label"] = labels[i];
      dataset["scenario"] = group.members[i]->id;
      datasets.push_back(std::move(dataset));
    }
    json spec = chart(group.name);
    spec["datasets"] = std::move(datasets);
    charts.push_back(std::move(spec));
  }
  return charts;
}

std::vector<json> loss_charts(const std::vector<const ScenarioResult*>& ok, std::size_t common) {
  std::vector<const ScenarioResult*> with_loss;
  for (const auto* s : ok)
    if (!s->loss_curve.empty()) with_loss.push_back(s);
  return small_multiples(
      with_loss,
      [](const ScenarioResult& s) {
        json values = json::array();
        for (double v : s.loss_curve) values.push_back(round6(v));
        return json{{"precision", to_string(s.params.precision)}, {"data", values}};
      },
      [&](const std::string& group) {
        return json{{"id", "loss-" + chart_slug(group)},
                    {"kind", "loss"},
                    {"group", "loss"},
                    {"title", "Loss per optimizer step: " + group},
                    {"caption", "Warm-up included. Curves differ in length; the dotted line marks step " +
                                    std::to_string(common) + ", the last step every scenario reached."},
                    {"common_step", common},
                    {"x_title", "optimizer step"},
                    {"y_title", "loss"}};
      });
}

// Each reduced-precision scenario's loss minus its fp32 twin's (extra.loss_parity's reference),
// step by step over the steps both recorded: curves that overlap in the loss charts part here.
// The same small-multiple groups as the loss charts.
std::vector<json> loss_difference_charts(const RunResult& run, const std::vector<const ScenarioResult*>& ok) {
  std::vector<const ScenarioResult*> with_twin;
  for (const auto* s : ok) {
    if (!s->loss_parity || s->loss_curve.empty()) continue;
    const ScenarioResult* ref = find_scenario(run, s->loss_parity->reference_id);
    if (ref && !ref->loss_curve.empty()) with_twin.push_back(s);
  }
  return small_multiples(
      with_twin,
      [&](const ScenarioResult& s) {
        const ScenarioResult& ref = *find_scenario(run, s.loss_parity->reference_id);
        json values = json::array();
        for (std::size_t k = 0; k < std::min(s.loss_curve.size(), ref.loss_curve.size()); ++k)
          values.push_back(round6(s.loss_curve[k] - ref.loss_curve[k]));
        return json{{"reference", ref.id},
                    {"parity_ok", s.loss_parity->ok},
                    {"precision", to_string(s.params.precision)},
                    {"data", values}};
      },
      [](const std::string& group) {
        return json{{"id", "loss-difference-" + chart_slug(group)},
                    {"kind", "loss_difference"},
                    {"group", "loss"},
                    {"title", "Loss minus the fp32 twin's loss: " + group},
                    {"caption",
                     "0 = the same loss as the fp32 scenario with the same other settings. The "
                     "loss-parity verdict compares the mean of the last steps against its "
                     "tolerance; dashed lines: scenarios that failed it."},
                    {"x_title", "optimizer step"},
                    {"y_title", "loss − fp32 loss"}};
      });
}

// Every measured step in order: warm-up effects and drift show as trends, segment boundaries
// (rounds of the interleaved schedule) as dotted lines.
std::vector<json> step_time_charts(const std::vector<const ScenarioResult*>& ok) {
  std::vector<const ScenarioResult*> timed;
  for (const auto* s : ok)
    if (!s->step_times_s.empty()) timed.push_back(s);
  return small_multiples(
      timed,
      [](const ScenarioResult& s) {
        json values = json::array(), boundaries = json::array();
        for (double v : s.step_times_s) values.push_back(round6(v * 1e3));
        int at = 0;
        for (std::size_t k = 0; k + 1 < s.segments.size(); ++k) boundaries.push_back(at += s.segments[k].steps);
        return json{{"precision", to_string(s.params.precision)}, {"data", values}, {"segment_starts", boundaries}};
      },
      [](const std::string& group) {
        return json{{"id", "steps-" + chart_slug(group)},
                    {"kind", "step_times"},
                    {"group", "steps"},
                    {"title", "Step time over measured steps: " + group},
                    {"caption",
                     "Warm-up steps are not measured and not shown; dotted lines: where a new "
                     "segment (round of the interleaved schedule) began, after its re-warm."},
                    {"x_title", "measured step"},
                    {"y_title", "ms per optimizer step"}};
      });
}

const MemoryFitEntry* fit_for(const RunCapacitySection& c, const BatchSearchEntry& b) {
  for (const auto& m : c.memory_fit)
    if (m.model == b.model && m.precision == b.precision) return &m;
  return nullptr;
}

// Per batch-size search: throughput and peak memory of every probe against batch size, the
// fitted memory line and the memory budget.
std::vector<json> capacity_charts(const RunResult& run) {
  std::vector<json> charts;
  if (!run.capacity) return charts;
  const RunCapacitySection& c = *run.capacity;
  for (const auto& b : c.batch_search) {
    if (b.probes.empty()) continue;
    json probes = json::array();
    for (const auto& p : b.probes)
      probes.push_back({{"batch", p.batch},
                        {"fits", p.fits},
                        {"samples_per_s", round6(p.samples_per_s)},
                        {"peak_bytes", p.peak_bytes}});
    const std::string name = (b.model.empty() ? "-" : b.model) + " · " + (b.precision.empty() ? "-" : b.precision);
    json chart = {{"id", "capacity-" + chart_slug(name)},
                  {"kind", "capacity"},
                  {"group", "capacity"},
                  {"title", "Throughput and peak memory vs batch size: " + name},
                  {"caption",
                   "Probes of the batch-size search in batch order; ✗ did not fit. Dashed: "
                   "memory model fixed + per-sample × batch; red: the memory budget."},
                  {"x_title", "batch size (log scale)"},
                  {"probes", probes},
                  {"best_batch", b.best_batch},
                  {"hit_limit", b.hit_limit},
                  {"memory_limit_bytes", c.memory_limit_bytes}};
    if (const MemoryFitEntry* fit = fit_for(c, b))
      chart["memory_fit"] = {{"fixed_bytes", round6(fit->fixed_bytes)},
                             {"per_sample_bytes", round6(fit->per_sample_bytes)}};
    charts.push_back(std::move(chart));
  }
  return charts;
}

}  // namespace

std::string chart_slug(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '_' || c == '@' || c == '.') out += static_cast<char>(c);
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

json html_chart_data(const RunResult& run) {
  const auto ok = ok_scenarios(run);
  json charts = json::array();
  // A capacity run's point is its batch-size search: those charts come first.
  for (auto& chart : capacity_charts(run)) charts.push_back(std::move(chart));
  for (json chart : {speedup_chart(ok, report::grouped_by_workload(run)), phases_chart(ok),
                     scaling_chart(ok, "workers"), scaling_chart(ok, "batch")})
    if (!chart.is_null()) charts.push_back(std::move(chart));
  for (auto& chart : loss_charts(ok, report::common_loss_step(run))) charts.push_back(std::move(chart));
  for (auto& chart : loss_difference_charts(run, ok)) charts.push_back(std::move(chart));
  for (auto& chart : step_time_charts(ok)) charts.push_back(std::move(chart));
  if (auto memory = report::memory_timeline_chart(run)) charts.push_back(std::move(*memory));
  return {{"run_id", run.run_id}, {"matrix", run.matrix_name}, {"baseline_id", run.baseline_id}, {"charts", charts}};
}

}  // namespace tb
