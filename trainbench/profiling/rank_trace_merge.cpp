#include <trainbench/profiling/rank_trace_merge.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include <trainbench/results/durable_file.hpp>
#include <trainbench/support/error.hpp>

namespace tb::profiling {

namespace {

using nlohmann::json;

// Pids of one rank's trace land in [rank * kPidStride, (rank + 1) * kPidStride).
constexpr long kPidStride = 1000;

json read_trace(const RankTrace& t) {
  std::ifstream in(t.path);
  if (!in) throw InputError(t.path, "", "rank " + std::to_string(t.rank) + "'s trace cannot be opened");
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("traceEvents") || !j["traceEvents"].is_array())
    throw InputError(t.path, "traceEvents", "not a Chrome trace written by trainbench");
  return j;
}

}  // namespace

void merge_rank_traces(const std::vector<RankTrace>& traces, const std::string& scenario, const std::string& out_path) {
  std::vector<json> parsed;
  for (const auto& t : traces) parsed.push_back(read_trace(t));
  // One machine: every trace's zero is a point on the same monotonic clock.
  const bool one_host =
      std::all_of(traces.begin(), traces.end(), [&](const RankTrace& t) { return t.host == traces.front().host; });
  std::int64_t base = std::numeric_limits<std::int64_t>::max();
  for (const auto& j : parsed) base = std::min(base, j["otherData"].value("trace_start_steady_ns", std::int64_t{0}));

  json events = json::array();
  json ranks = json::array();
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const int rank = traces[i].rank;
    const double shift_us =
        one_host ? static_cast<double>(parsed[i]["otherData"].value("trace_start_steady_ns", base) - base) / 1000.0
                 : 0.0;
    for (auto& e : parsed[i]["traceEvents"]) {
      if (!e.is_object()) continue;
      if (e.contains("pid") && e["pid"].is_number_integer()) e["pid"] = rank * kPidStride + e["pid"].get<long>();
      if (e.contains("ts") && e["ts"].is_number()) e["ts"] = e["ts"].get<double>() + shift_us;
      if (e.value("ph", "") == "M" && e.contains("args") && e["args"].is_object()) {
        if (e.value("name", "") == "process_name")
          e["args"]["name"] = "rank " + std::to_string(rank) + ": " + e["args"].value("name", std::string());
        if (e.value("name", "") == "process_sort_index" && e["args"].contains("sort_index"))
          e["args"]["sort_index"] = rank * kPidStride + e["args"].value("sort_index", 0L);
      }
      events.push_back(std::move(e));
    }
    ranks.push_back({{"rank", rank}, {"host", traces[i].host}, {"file", traces[i].path}});
  }
  const json other = {{"generator", "trainbench"}, {"name", scenario}, {"ranks", ranks}, {"aligned", one_host}};
  write_file_durably(out_path, json({{"displayTimeUnit", "ms"}, {"otherData", other}, {"traceEvents", events}}).dump());
}

}  // namespace tb::profiling
