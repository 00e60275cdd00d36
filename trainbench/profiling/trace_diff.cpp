#include <trainbench/profiling/trace_diff.hpp>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <unordered_map>

#include <trainbench/measure/phase.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb::profiling {
namespace {

constexpr const char* kNoPhase = "(no phase)";
constexpr const char* kLoaderPhase = "loader";

enum class Role { ignored, op, kernel, phase_range, step_range, launch };

Role role_of(const std::string& cat, const std::string& name) {
  if (name.rfind("ProfilerStep#", 0) == 0 || cat == "step") return Role::step_range;
  if (cat == "user_annotation" || cat == "phase") return Role::phase_range;
  // The loader's range as PyTorch names it (trainbench records its data wait so, as an operator).
  if (name.rfind("enumerate(DataLoader)#", 0) == 0) return Role::phase_range;
  if (cat == "cpu_op" || cat == "operator" || cat == "host") return Role::op;
  if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") return Role::kernel;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime") return Role::launch;
  return Role::ignored;
}

// "enumerate(DataLoader)#trainbench.data_wait.__next__" -> "data_wait"; other names as they are.
std::string phase_label(const std::string& range_name) {
  static const std::string marker = "trainbench.";
  const auto at = range_name.find(marker);
  if (at == std::string::npos) return range_name;
  const auto begin = at + marker.size();
  const auto end = range_name.find('.', begin);
  return range_name.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// Kineto writes pid/tid as numbers or strings ("Spans"): either keys a thread.
std::string id_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

struct Event {
  Role role;
  std::string name;
  std::string thread;  // pid/tid
  double begin = 0, end = 0;
  std::int64_t correlation = -1;
  std::string phase = kNoPhase;  // innermost enclosing phase range
  double children_us = 0;
};

std::string read_file_text(const std::string& path) {
  std::error_code ec;
  TB_CHECK_INPUT(std::filesystem::is_regular_file(path, ec), path, "", "no such trace file");
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are
  TB_CHECK_INPUT(f != nullptr, path, "", "cannot open the trace file");
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  const bool failed = n < 0;
  gzclose(f);
  TB_CHECK_INPUT(!failed, path, "", "cannot read the trace file (truncated gzip?)");
  return text;
}

double figure(double total, int steps) { return steps > 0 ? total / steps : total; }

bool larger_self(const OpChange& a, const OpChange& b) {
  const double sa = std::max(a.old_figures.self_us, a.new_figures.self_us);
  const double sb = std::max(b.old_figures.self_us, b.new_figures.self_us);
  if (sa != sb) return sa > sb;
  return a.key < b.key;
}

bool larger_change(const OpChange& a, const OpChange& b) {
  const double ca = std::abs(a.self_change_us()), cb = std::abs(b.self_change_us());
  if (ca != cb) return ca > cb;
  const double na = std::abs(a.count_change()), nb = std::abs(b.count_change());
  if (na != nb) return na > nb;
  return a.key < b.key;
}

// Phases in step order (data_wait ... comm), then other ranges by name, "(no phase)" last.
int phase_rank(const std::string& phase) {
  for (std::size_t i = 0; i < kPhaseCount; ++i)
    if (phase == kPhaseNames[i]) return static_cast<int>(i);
  return phase == kNoPhase ? 1000 : 100;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

TraceProfile profile_trace(const nlohmann::json& trace, const std::string& path) {
  const nlohmann::json* events = nullptr;
  if (trace.is_object() && trace.contains("traceEvents")) events = &trace["traceEvents"];
  else if (trace.is_array()) events = &trace;  // the JSON Array Format of the Trace Event Format
  TB_CHECK_INPUT(events != nullptr && events->is_array(), path, "traceEvents",
                 "not a Chrome/Kineto trace: expected a traceEvents array");

  std::vector<Event> parsed;
  std::unordered_map<std::string, std::string> thread_names;
  int steps = 0;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const auto& e = (*events)[i];
    if (!e.is_object()) continue;
    if (e.value("ph", std::string()) == "M" && e.value("name", std::string()) == "thread_name" && e.contains("args") &&
        e["args"].is_object() && e["args"].contains("name") && e["args"]["name"].is_string()) {
      thread_names[id_text(e.value("pid", nlohmann::json(0))) + "/" + id_text(e.value("tid", nlohmann::json(0)))] =
          e["args"]["name"].get<std::string>();
      continue;
    }
    if (e.value("ph", std::string()) != "X") continue;
    const auto name_it = e.find("name");
    if (name_it == e.end() || !name_it->is_string()) continue;
    const std::string cat = e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : "";
    const Role role = role_of(cat, name_it->get<std::string>());
    if (role == Role::ignored) continue;
    const auto ts = e.find("ts"), dur = e.find("dur");
    TB_CHECK_INPUT(ts != e.end() && ts->is_number() && dur != e.end() && dur->is_number(), path,
                   "traceEvents[" + std::to_string(i) + "]", "complete event '", name_it->get<std::string>(),
                   "' needs numeric ts and dur");
    Event ev{role, name_it->get<std::string>(),
             id_text(e.value("pid", nlohmann::json(0))) + "/" + id_text(e.value("tid", nlohmann::json(0))),
             ts->get<double>(), ts->get<double>() + std::max(0.0, dur->get<double>())};
    if (e.contains("args") && e["args"].is_object()) {
      const auto& args = e["args"];
      for (const char* key : {"correlation", "External id"}) {
        if (role != Role::kernel && role != Role::launch) break;
        if (args.contains(key) && args[key].is_number_integer()) {
          ev.correlation = args[key].get<std::int64_t>();
          break;
        }
      }
    }
    if (role == Role::step_range) ++steps;
    parsed.push_back(std::move(ev));
  }

  // Nesting per thread: sorted by start (longer first at equal starts), a stack of open events.
  std::vector<std::size_t> order(parsed.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Event &x = parsed[a], &y = parsed[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.begin != y.begin) return x.begin < y.begin;
    return x.end > y.end;
  });
  constexpr double kSlackUs = 0.001;  // Kineto rounds to nanoseconds
  std::vector<std::size_t> open;
  for (std::size_t k = 0; k < order.size(); ++k) {
    Event& ev = parsed[order[k]];
    if (ev.role == Role::kernel) continue;  // device timeline: no host nesting
    if (k > 0 && parsed[order[k - 1]].thread != ev.thread) open.clear();
    while (!open.empty() && (parsed[open.back()].thread != ev.thread || ev.begin >= parsed[open.back()].end - kSlackUs))
      open.pop_back();
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
      if (parsed[*it].role == Role::phase_range) {
        ev.phase = phase_label(parsed[*it].name);
        break;
      }
    }
    // A runtime call (kernel launch) is its operator's own work, as in the profiler's self CPU
    // time: it takes a phase but is neither a child nor a parent.
    if (ev.role == Role::launch) continue;
    if (!open.empty()) parsed[open.back()].children_us += ev.end - ev.begin;
    open.push_back(order[k]);
  }

  std::unordered_map<std::int64_t, std::string> launch_phase;
  for (const auto& ev : parsed)
    if (ev.role == Role::launch && ev.correlation >= 0) launch_phase.emplace(ev.correlation, ev.phase);

  TraceProfile profile;
  profile.path = path;
  profile.steps = steps;
  for (const auto& ev : parsed) {
    if (ev.role != Role::op && ev.role != Role::kernel) continue;
    std::string phase = ev.phase;
    if (phase == kNoPhase) {
      // Data-loader workers ("loader-N", "thread 123 (loader-N)") run outside the step's phases.
      const auto name = thread_names.find(ev.thread);
      if (name != thread_names.end() && name->second.find("loader-") != std::string::npos) phase = kLoaderPhase;
    }
    if (ev.role == Role::kernel) {
      const auto it = launch_phase.find(ev.correlation);
      phase = it == launch_phase.end() ? kNoPhase : it->second;
    }
    auto& f = profile.ops[TraceOpKey{phase, ev.role == Role::kernel ? "kernel" : "op", ev.name}];
    const double dur = ev.end - ev.begin;
    f.count += 1;
    f.total_us += dur;
    f.self_us += ev.role == Role::kernel ? dur : std::max(0.0, dur - ev.children_us);
  }
  for (auto& [key, f] : profile.ops) {
    f.count = figure(f.count, steps);
    f.self_us = figure(f.self_us, steps);
    f.total_us = figure(f.total_us, steps);
  }
  return profile;
}

TraceProfile read_trace_profile(const std::string& path) {
  return profile_trace(parse_json_text(read_file_text(path), path), path);
}

TraceDiff diff_traces(const TraceProfile& old_trace, const TraceProfile& new_trace) {
  TraceDiff diff{old_trace.path, new_trace.path, old_trace.steps, new_trace.steps, {}};
  std::map<std::string, PhaseDiff> phases;
  std::set<TraceOpKey> keys;
  for (const auto& [k, f] : old_trace.ops) keys.insert(k);
  for (const auto& [k, f] : new_trace.ops) keys.insert(k);
  for (const auto& key : keys) {
    const auto o = old_trace.ops.find(key);
    const auto n = new_trace.ops.find(key);
    OpChange change{key, o == old_trace.ops.end() ? OpFigures{} : o->second,
                    n == new_trace.ops.end() ? OpFigures{} : n->second};
    PhaseDiff& phase = phases[key.phase];
    phase.phase = key.phase;
    phase.old_self_us += change.old_figures.self_us;
    phase.new_self_us += change.new_figures.self_us;
    if (o == old_trace.ops.end()) phase.added.push_back(change);
    else if (n == new_trace.ops.end()) phase.removed.push_back(change);
    else if (change.count_change() != 0 || change.self_change_us() != 0) phase.changed.push_back(change);
  }
  for (auto& [name, phase] : phases) {
    std::sort(phase.added.begin(), phase.added.end(), larger_self);
    std::sort(phase.removed.begin(), phase.removed.end(), larger_self);
    std::sort(phase.changed.begin(), phase.changed.end(), larger_change);
    diff.phases.push_back(std::move(phase));
  }
  std::stable_sort(diff.phases.begin(), diff.phases.end(),
                   [](const PhaseDiff& a, const PhaseDiff& b) { return phase_rank(a.phase) < phase_rank(b.phase); });
  return diff;
}

std::string describe_change(const OpChange& c) {
  const std::string what = c.key.name + " (" + c.key.kind + ", " + c.key.phase + ")";
  if (c.old_figures.count == 0)
    return "added    " + what + ": " + fmt("%.3g", c.new_figures.count) + " calls, self " +
           fmt("%.1f", c.new_figures.self_us) + " us";
  if (c.new_figures.count == 0)
    return "removed  " + what + ": " + fmt("%.3g", c.old_figures.count) + " calls, self " +
           fmt("%.1f", c.old_figures.self_us) + " us";
  std::string line = "changed  " + what + ": calls " + fmt("%.3g", c.old_figures.count) + " -> " +
                     fmt("%.3g", c.new_figures.count) + ", self " + fmt("%.1f", c.old_figures.self_us) + " -> " +
                     fmt("%.1f", c.new_figures.self_us) + " us";
  if (c.old_figures.self_us > 0) line += " (" + fmt("%+.0f", c.self_change_us() / c.old_figures.self_us * 100) + "%)";
  return line;
}

std::vector<OpChange> largest_changes(const TraceDiff& diff, std::size_t top) {
  std::vector<OpChange> all;
  for (const auto& p : diff.phases)
    for (const auto* list : {&p.added, &p.removed, &p.changed}) all.insert(all.end(), list->begin(), list->end());
  std::sort(all.begin(), all.end(), larger_change);
  if (all.size() > top) all.resize(top);
  return all;
}

void print_trace_diff(const TraceDiff& diff, std::size_t top, std::ostream& out) {
  const auto per = [](int steps) {
    return steps > 0 ? std::to_string(steps) + " steps" : std::string("no step ranges");
  };
  out << "old: " << diff.old_path << " (" << per(diff.old_steps) << ")\n"
      << "new: " << diff.new_path << " (" << per(diff.new_steps) << ")\n"
      << "figures per step (per trace without step ranges); self time = duration minus children\n";
  for (const auto& p : diff.phases) {
    if (p.added.empty() && p.removed.empty() && p.changed.empty()) continue;
    out << "\nphase " << p.phase << ": self " << fmt("%.1f", p.old_self_us) << " -> " << fmt("%.1f", p.new_self_us)
        << " us per step\n";
    for (const auto* list : {&p.added, &p.removed, &p.changed})
      for (std::size_t i = 0; i < list->size() && i < top; ++i) out << "  " << describe_change((*list)[i]) << '\n';
  }
}

nlohmann::json trace_diff_json(const TraceDiff& diff, std::size_t top) {
  const auto figures = [](const OpFigures& f) {
    return nlohmann::json{{"count", f.count}, {"self_us", f.self_us}, {"total_us", f.total_us}};
  };
  const auto list = [&](const std::vector<OpChange>& changes) {
    auto arr = nlohmann::json::array();
    for (std::size_t i = 0; i < changes.size() && i < top; ++i) {
      const auto& c = changes[i];
      arr.push_back({{"name", c.key.name},
                     {"kind", c.key.kind},
                     {"old", figures(c.old_figures)},
                     {"new", figures(c.new_figures)},
                     {"self_change_us", c.self_change_us()},
                     {"count_change", c.count_change()}});
    }
    return arr;
  };
  auto phases = nlohmann::json::array();
  for (const auto& p : diff.phases)
    phases.push_back({{"phase", p.phase},
                      {"old_self_us", p.old_self_us},
                      {"new_self_us", p.new_self_us},
                      {"added", list(p.added)},
                      {"removed", list(p.removed)},
                      {"changed", list(p.changed)}});
  return {{"old", {{"path", diff.old_path}, {"steps", diff.old_steps}}},
          {"new", {{"path", diff.new_path}, {"steps", diff.new_steps}}},
          {"per_step", diff.old_steps > 0 && diff.new_steps > 0},
          {"phases", phases}};
}

}  // namespace tb::profiling
