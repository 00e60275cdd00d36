#include <trainbench/results/provenance.hpp>

#include <limits>
#include <utility>

#include <trainbench/support/json_fields.hpp>
#include <trainbench/support/json_input.hpp>
#include <trainbench/support/json_integer.hpp>

namespace tb {

namespace {

void require_object(const nlohmann::json& j) {
  if (!j.is_object()) throw FieldError("", "must be an object, got " + excerpt(j));
}

// j[key] read by from_json within its path, when present.
template <typename T>
void optional_object(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  out.reset();
  if (!j.contains(key)) return;
  out = within(key, [&] {
    require_object(j.at(key));
    return j.at(key).template get<T>();
  });
}

// A list of `T`s, each entry read by `read_item(entry)` within its path; empty when absent.
template <typename T, typename ReadItem>
std::vector<T> list_field(const nlohmann::json& j, const char* key, ReadItem&& read_item) {
  std::vector<T> out;
  if (!j.contains(key)) return out;
  return within(key, [&] {
    const auto& list = j.at(key);
    if (!list.is_array()) throw FieldError("", "must be a list, got " + excerpt(list));
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back(within("[" + std::to_string(i) + "]", [&] { return read_item(list[i]); }));
    return out;
  });
}

std::vector<std::string> strict_texts(const nlohmann::json& j, const char* key) {
  return list_field<std::string>(j, key, [](const nlohmann::json& v) {
    if (!v.is_string()) throw FieldError("", "must be a string, got " + excerpt(v));
    return v.get<std::string>();
  });
}

// An int of a list ("missing": [1, 3]).
int list_int(const nlohmann::json& v) {
  const bool fits = v.is_number_unsigned()
                        ? std::cmp_less_equal(v.get<std::uint64_t>(), std::numeric_limits<int>::max())
                    : v.is_number_integer() ? std::in_range<int>(v.get<std::int64_t>())
                                            : false;
  if (!fits) throw FieldError("", "must be an integer, got " + excerpt(v));
  return v.get<int>();
}

std::vector<int> index_list(const nlohmann::json& j, const char* key) { return list_field<int>(j, key, list_int); }

}  // namespace

bool measured_together(const ScenarioProvenance& a, const ScenarioProvenance& b) {
  const int shard_a = a.shard ? a.shard->index : -1, shard_b = b.shard ? b.shard->index : -1;
  return shard_a == shard_b && a.measured_in_resume == b.measured_in_resume;
}

void to_json(nlohmann::json& j, const ShardRecord& s) {
  j = {{"index", s.shard.index},
       {"count", s.shard.count},
       {"matrix_digest", s.matrix_digest},
       {"scenarios", s.scenarios}};
}
void from_json(const nlohmann::json& j, ShardRecord& s) {
  require_object(j);
  s.shard.index = integer_field<int>(j, "index", -1);
  s.shard.count = integer_field<int>(j, "count", 0);
  s.matrix_digest = text_field(j, "matrix_digest", "");
  s.scenarios = integer_field<std::size_t>(j, "scenarios", 0);
}

void to_json(nlohmann::json& j, const ResumeProvenance& s) {
  j = {{"count", s.count}, {"resumed_at", s.resumed_at}, {"rerun", s.rerun}, {"forced", s.forced}};
  if (!s.forced_over.empty()) j["forced_over"] = s.forced_over;
}
void from_json(const nlohmann::json& j, ResumeProvenance& s) {
  require_object(j);
  s.count = integer_field<int>(j, "count", 0);
  s.resumed_at = text_field(j, "resumed_at", "");
  s.rerun = strict_texts(j, "rerun");
  s.forced = flag_field(j, "forced", false);
  s.forced_over = strict_texts(j, "forced_over");
}

void to_json(nlohmann::json& j, const AbSessionProvenance& s) {
  j = {{"id", s.id}, {"side", s.side}};
  put_optional(j, "processes", s.processes);
  if (!s.reference.empty()) j["reference"] = s.reference;
  if (!s.paired.empty()) {
    j["paired"] = nlohmann::json::array();
    for (const auto& p : s.paired)
      j["paired"].push_back(
          {{"scenario", p.scenario}, {"ratio", p.ratio}, {"low", p.low}, {"high", p.high}, {"valid", p.valid}});
  }
}
void from_json(const nlohmann::json& j, AbSessionProvenance& s) {
  require_object(j);
  s.id = text_field(j, "id", "");
  s.side = text_field(j, "side", "");
  s.processes.reset();
  if (j.contains("processes")) s.processes = integer_field<std::int64_t>(j, "processes", 0);
  s.reference = text_field(j, "reference", "");
  s.paired = list_field<PairedRatio>(j, "paired", [](const nlohmann::json& v) {
    require_object(v);
    return PairedRatio{.scenario = text_field(v, "scenario", ""),
                       .ratio = number_field(v, "ratio", 1),
                       .low = number_field(v, "low", 1),
                       .high = number_field(v, "high", 1),
                       .valid = flag_field(v, "valid", false)};
  });
}

void to_json(nlohmann::json& j, const MergedShard& s) {
  j = {{"index", s.index},
       {"location", s.location},
       {"run_id", s.run_id},
       {"hostname", s.hostname},
       {"started_at", s.started_at}};
}
void from_json(const nlohmann::json& j, MergedShard& s) {
  require_object(j);
  s.index = integer_field<int>(j, "index", 0);
  s.location = text_field(j, "location", "");
  s.run_id = text_field(j, "run_id", "");
  s.hostname = text_field(j, "hostname", "");
  s.started_at = text_field(j, "started_at", "");
}

void to_json(nlohmann::json& j, const MergeProvenance& s) {
  j = {{"count", s.count}, {"shards", s.shards}, {"missing", s.missing}};
  if (!s.environment_differences.empty()) j["environment_differences"] = s.environment_differences;
}
void from_json(const nlohmann::json& j, MergeProvenance& s) {
  require_object(j);
  s.count = integer_field<int>(j, "count", 0);
  s.shards = list_field<MergedShard>(j, "shards", [](const nlohmann::json& v) { return v.get<MergedShard>(); });
  s.missing = index_list(j, "missing");
  s.environment_differences = strict_texts(j, "environment_differences");
}

void to_json(nlohmann::json& j, const RanksProvenance& s) {
  j = {{"world_size", s.world_size}, {"local_world_size", s.local_world_size}, {"launcher", s.launcher}};
}
void from_json(const nlohmann::json& j, RanksProvenance& s) {
  require_object(j);
  s.world_size = integer_field<int>(j, "world_size", 1);
  s.local_world_size = integer_field<int>(j, "local_world_size", 1);
  s.launcher = text_field(j, "launcher", "");
}

// Only what applies: a plain run's provenance is {}.
void to_json(nlohmann::json& j, const RunProvenance& s) {
  j = nlohmann::json::object();
  put_optional(j, "shard", s.shard);
  put_optional(j, "resume", s.resume);
  put_optional(j, "ab_session", s.ab_session);
  put_optional(j, "merge", s.merge);
  put_optional(j, "ranks", s.ranks);
  if (s.isolated) j["isolated"] = true;
}
void from_json(const nlohmann::json& j, RunProvenance& s) {
  require_object(j);
  optional_object(j, "shard", s.shard);
  optional_object(j, "resume", s.resume);
  optional_object(j, "ab_session", s.ab_session);
  optional_object(j, "merge", s.merge);
  optional_object(j, "ranks", s.ranks);
  s.isolated = flag_field(j, "isolated", false);
}

void to_json(nlohmann::json& j, const ScenarioShard& s) { j = {{"index", s.index}, {"position", s.position}}; }
void from_json(const nlohmann::json& j, ScenarioShard& s) {
  require_object(j);
  s.index = integer_field<int>(j, "index", 0);
  s.position = integer_field<std::size_t>(j, "position", 0);
}

void to_json(nlohmann::json& j, const ScenarioProvenance& s) {
  j = nlohmann::json::object();
  put_optional(j, "shard", s.shard);
  if (s.measured_in_resume > 0) j["measured_in_resume"] = s.measured_in_resume;
}
void from_json(const nlohmann::json& j, ScenarioProvenance& s) {
  require_object(j);
  optional_object(j, "shard", s.shard);
  s.measured_in_resume = integer_field<int>(j, "measured_in_resume", 0);
}

}  // namespace tb
