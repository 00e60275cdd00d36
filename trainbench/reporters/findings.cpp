#include <trainbench/reporters/findings.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/measure/axis_effects.hpp>
#include <trainbench/measure/bottleneck.hpp>
#include <trainbench/measure/comparison.hpp>
#include <trainbench/measure/precision_support.hpp>
#include <trainbench/reporters/published_references.hpp>
#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

namespace {

// Switches read "on"/"off", not "true"/"false".
std::string value_text(const std::string& v) {
  if (v == "true") return "on";
  if (v == "false") return "off";
  return v;
}

std::string effect_line(const AxisEffect& e) {
  std::string line = (e.workload.empty() ? "" : e.workload + ": ") + e.axis + " " + value_text(e.value) + " vs " +
                     value_text(e.reference) + ": " + ratio_with_verdict(e.speedup, e.verdict) + " (" +
                     std::to_string(e.pairs) + (e.pairs == 1 ? " pair" : " pairs");
  if (e.pairs > 1) line += ", " + times(e.lowest) + " to " + times(e.highest) + " across the other settings";
  if (e.drifted_pairs > 0) line += "; loss drifted from fp32 in " + std::to_string(e.drifted_pairs);
  return line + ")";
}

// The first number of a bottleneck reason ("data wait 74% of the step" -> 74): which scenario
// a bottleneck limits most.
int leading_percent(const std::string& reason) {
  const auto digit = reason.find_first_of("0123456789");
  return digit == std::string::npos ? 0 : std::atoi(reason.c_str() + digit);
}

std::vector<std::string> best_lines(const BestConfiguration& b) {
  const std::string where = b.workload.empty() ? "" : b.workload + ": ";
  std::string line = where + "fastest " + b.id;
  if (!b.reference_id.empty()) {
    const bool directed = b.verdict_vs_reference == "faster" || b.verdict_vs_reference == "slower";
    line += directed
                ? ", " + ratio_with_verdict(b.vs_reference, b.verdict_vs_reference) + " than " + b.reference_id
                : ", against " + b.reference_id + ": " + ratio_with_verdict(b.vs_reference, b.verdict_vs_reference);
  } else if (b.runner_up_id.empty()) line += " (the only measured configuration)";
  std::vector<std::string> lines{line};
  if (!b.runner_up_id.empty()) {
    std::string next = "  next: " + b.runner_up_id + ", which the fastest beats by " +
                       ratio_with_verdict(b.vs_runner_up, b.verdict_vs_runner_up);
    if (!b.vs_runner_up.valid) next += ": too few segments for an interval, so no claim either way";
    else if (b.verdict_vs_runner_up != "faster") next += ": not distinguishable, either will do";
    lines.push_back(next);
  }
  if (!b.faster_but_drifted.empty())
    lines.push_back(
        "  left out, faster but their loss drifted from fp32: " + std::to_string(b.faster_but_drifted.size()) + " (" +
        b.faster_but_drifted.front() + (b.faster_but_drifted.size() > 1 ? ", ..." : "") + ")");
  return lines;
}

// One line per bottleneck: how many scenarios it limits, and the one it limits most (the highest
// share, which leads the reason) as the example; the table's column has every scenario.
std::vector<std::string> bottleneck_lines(const RunResult& run) {
  struct Tally {
    int count = 0;
    std::string example_id, example_reason;
  };
  std::vector<Bottleneck::Kind> order;
  std::map<Bottleneck::Kind, Tally> by_kind;
  int measured = 0;
  bool idle_unknown = false;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) continue;
    const Bottleneck b = bottleneck_of(s);
    if (b.kind == Bottleneck::Kind::none) continue;
    ++measured;
    idle_unknown |= b.gpu_idle_unknown;
    if (!by_kind.count(b.kind)) order.push_back(b.kind);
    Tally& t = by_kind[b.kind];
    ++t.count;
    if (t.example_id.empty() || leading_percent(b.reason) > leading_percent(t.example_reason)) {
      t.example_id = s.id;
      t.example_reason = b.reason;
    }
  }
  std::vector<std::string> lines;
  for (const auto kind : order) {
    const Tally& t = by_kind[kind];
    lines.push_back(std::string(to_string(kind)) + ": " + std::to_string(t.count) + " of " + std::to_string(measured) +
                    (t.count > 1 ? ", most " : ", ") + t.example_id + " (" + t.example_reason + ")");
  }
  if (idle_unknown)
    lines.push_back(
        "  compute-bound on a GPU may be launch-bound: only a CUPTI profile (profile.cupti) "
        "measures how long the GPU sat idle");
  return lines;
}

}  // namespace

std::string ratio_with_verdict(const stats::RatioInterval& r, const std::string& verdict) {
  const std::string interval =
      r.valid ? " [" + fixed(r.low, 2) + ", " + fixed(r.high, 2) + "]" : std::string(" [no CI]");
  return times(r.ratio) + interval + " " + verdict;
}

std::string bottleneck_cell(const ScenarioResult& s) {
  switch (bottleneck_of(s).kind) {
    case Bottleneck::Kind::communication: return "comm";
    case Bottleneck::Kind::data: return "data";
    case Bottleneck::Kind::copy: return "copy";
    case Bottleneck::Kind::host_launch: return "launch";
    case Bottleneck::Kind::compute: return "compute";
    case Bottleneck::Kind::none: break;
  }
  return "-";
}

namespace {

// Compute-only scenarios say so first: their throughput leaves the input pipeline out.
std::vector<std::string> data_lines(const RunResult& run) {
  int resident = 0, measured = 0;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) continue;
    ++measured;
    resident += device_resident_data(s.params) ? 1 : 0;
  }
  if (resident == 0) return {};
  return {"Compute only: " +
          (resident == measured ? std::string("every scenario's")
                                : std::to_string(resident) + " of " + std::to_string(measured) + " scenarios'") +
          " batches were made once and kept on the device (dataset_options.placement \"device\"), as published "
          "training-throughput benchmarks measure: no data loading and no host-to-device copy is in these step "
          "times. Placement \"host\" (the default) and the workers axis measure the input pipeline."};
}

// The matrix's named configurations (plain, tuned): in each workload, the best scenario of each
// configuration (the most samples/s) against the best of the first one.
std::vector<std::string> configuration_lines(const RunResult& run) {
  std::vector<std::string> names;
  std::map<std::pair<std::string, std::string>, const ScenarioResult*> best;  // (workload, name)
  std::vector<std::string> workloads;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok || s.params.configuration.empty() || s.samples_per_s <= 0) continue;
    const std::string w = workload_of(s.params);
    if (std::find(names.begin(), names.end(), s.params.configuration) == names.end())
      names.push_back(s.params.configuration);
    if (std::find(workloads.begin(), workloads.end(), w) == workloads.end()) workloads.push_back(w);
    auto& slot = best[{w, s.params.configuration}];
    if (slot == nullptr || s.samples_per_s > slot->samples_per_s) slot = &s;
  }
  std::vector<std::string> lines;
  if (names.size() < 2) return lines;
  for (const auto& w : workloads) {
    const auto reference = best.find({w, names.front()});
    if (reference == best.end()) continue;
    for (std::size_t i = 1; i < names.size(); ++i) {
      const auto other = best.find({w, names[i]});
      if (other == best.end()) continue;
      const auto r = per_sample_speedup(*reference->second, *other->second);
      lines.push_back(w + ": " + names[i] + " " + ratio_with_verdict(r, stats::to_string(stats::classify(r))) +
                      " than " + names.front() + " per sample (best of each: " + other->second->id + " " +
                      fixed(other->second->samples_per_s, 1) + " samples/s, " + reference->second->id + " " +
                      fixed(reference->second->samples_per_s, 1) + ")");
    }
  }
  return lines;
}

// One line per device and reduced type that a measured scenario computed in: how the hardware
// computes it (native path or emulated), so a reader knows whether a slow bf16 belongs to the
// hardware or to the loop. Said once per run, not per scenario.
std::vector<std::string> precision_path_lines(const RunResult& run) {
  std::vector<std::string> lines;
  std::vector<std::pair<DeviceKind, ReducedDtype>> said;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) continue;
    const ReducedDtype type = definition(s.params.precision).reduced_dtype;
    if (type == ReducedDtype::none) continue;
    const auto key = std::make_pair(s.params.device, type);
    if (std::find(said.begin(), said.end(), key) != said.end()) continue;
    said.push_back(key);
    const std::string device = to_string(s.params.device);
    const auto path = recorded_precision_path(run.environment, device, type);
    if (!path) continue;
    const std::string name = type == ReducedDtype::bfloat16 ? "bf16" : "fp16";
    const std::string hardware = s.params.device == DeviceKind::cpu ? "this CPU" : "this GPU";
    lines.push_back(path->native ? name + " on " + hardware + ": native, " + path->detail
                                 : path->detail + "; its speed-ups here say nothing of hardware that computes " + name +
                                       " natively");
  }
  return lines;
}

}  // namespace

std::vector<FindingGroup> findings(const RunResult& run) {
  std::vector<FindingGroup> groups;
  if (auto data = data_lines(run); !data.empty()) groups.push_back({"Data", std::move(data)});
  if (auto configurations = configuration_lines(run); !configurations.empty())
    groups.push_back({"Configurations (the best scenario of each, per workload)", std::move(configurations)});
  if (auto published = published_reference_lines(run, published_references()); !published.empty())
    groups.push_back({"Published figures on this GPU (data/published_throughputs.json)", std::move(published)});
  FindingGroup effects{"Effect of each setting (per sample, averaged over the other settings)", {}};
  for (const auto& e : axis_effects(run)) {
    if (!e.workload.empty())
      effects.heading = "Effect of each setting (per sample, within each workload, averaged over the other settings)";
    effects.lines.push_back(effect_line(e));
  }
  for (auto& line : precision_path_lines(run)) effects.lines.push_back(std::move(line));
  FindingGroup best{"Fastest configuration", {}};
  for (const auto& b : best_configurations(run))
    for (auto& line : best_lines(b)) best.lines.push_back(std::move(line));
  FindingGroup limits{"Bottlenecks (docs/reading-a-report.md)", bottleneck_lines(run)};
  for (auto* g : {&effects, &best, &limits})
    if (!g->lines.empty()) groups.push_back(std::move(*g));
  return groups;
}

}  // namespace tb::report
