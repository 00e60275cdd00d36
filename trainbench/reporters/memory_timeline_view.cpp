#include <trainbench/reporters/memory_timeline_view.hpp>

#include <cmath>

#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

namespace {

using nlohmann::json;

// The timeline of a scenario when it is well-formed (two arrays of one length), else nullptr.
const json* timeline_of(const ScenarioResult& s) {
  if (!s.profile || !s.profile->memory_timeline.is_object()) return nullptr;
  const json& t = s.profile->memory_timeline;
  const auto times = t.find("t_ms"), values = t.find("bytes");
  if (times == t.end() || values == t.end() || !times->is_array() || !values->is_array() || times->empty() ||
      times->size() != values->size())
    return nullptr;
  return &t;
}

std::string source_name(const json& t) {
  const std::string source = t.value("source", "");
  if (source == "rss") return "RSS";
  if (source == "cuda_allocated") return "CUDA allocated";
  return source;
}

double number_or(const json& v, double fallback) { return v.is_number() ? v.get<double>() : fallback; }

double mib(double bytes) { return std::round(bytes / (1024.0 * 1024.0) * 100) / 100; }

}  // namespace

std::string memory_timeline_summary(const ScenarioResult& s) {
  const json* t = timeline_of(s);
  if (!t) return "";
  const json& times = t->at("t_ms");
  const json& values = t->at("bytes");
  const auto as_bytes = [](const json& v) { return static_cast<std::int64_t>(number_or(v, 0)); };
  return "peak " + bytes(as_bytes(t->value("peak_bytes", json(0)))) + " " + source_name(*t) + " at " +
         fixed(number_or(t->value("peak_t_ms", json(0)), 0), 1) + " ms of the " + fixed(number_or(times.back(), 0), 1) +
         " ms window (start " + bytes(as_bytes(values.front())) + ", end " + bytes(as_bytes(values.back())) + "; " +
         std::to_string(t->value("readings", 0)) + " readings, one every " +
         significant(number_or(t->value("interval_ms", json(0)), 0)) + " ms)";
}

std::optional<json> memory_timeline_chart(const RunResult& run) {
  json datasets = json::array();
  for (const auto& s : run.scenarios) {
    const json* t = timeline_of(s);
    if (!t) continue;
    json data = json::array();
    const json& times = t->at("t_ms");
    const json& values = t->at("bytes");
    for (std::size_t i = 0; i < times.size(); ++i)
      data.push_back({{"x", number_or(times[i], 0)}, {"y", mib(number_or(values[i], 0))}});
    datasets.push_back({{"label", s.id},
                        {"source", t->value("source", "")},
                        {"peak_mib", mib(number_or(t->value("peak_bytes", json(0)), 0))},
                        {"data", std::move(data)}});
  }
  if (datasets.empty()) return std::nullopt;
  return json{{"id", "memory-timeline"},
              {"kind", "memory"},
              {"title", "Memory during the profiling window"},
              {"x_title", "ms since the window started"},
              {"y_title", "MiB"},
              {"datasets", std::move(datasets)}};
}

}  // namespace tb::report
