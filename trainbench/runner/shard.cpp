#include <trainbench/runner/shard.hpp>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

#include <trainbench/support/error.hpp>
#include <trainbench/support/json_fields.hpp>
#include <trainbench/support/json_integer.hpp>

namespace tb {

namespace {

constexpr const char* kOption = "--shard";
constexpr const char* kForm = "give i/n: shard i (0-based) of n shards, e.g. 0/4 ... 3/4";

// A whole number of digits only ("+1", " 1", "1.0" and "" are not).
std::optional<long long> whole_number(const std::string& text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  TB_CHECK_INPUT(slash != std::string::npos, "command line", kOption, "'", text, "' is not i/n; ", kForm);
  const auto index = whole_number(text.substr(0, slash));
  const auto count = whole_number(text.substr(slash + 1));
  TB_CHECK_INPUT(index && count, "command line", kOption, "'", text, "' is not i/n; ", kForm);
  TB_CHECK_INPUT(*count >= 1 && *count <= kMaxShards, "command line", kOption, "'", text,
                 "': the shard count must be from 1 to ", kMaxShards);
  TB_CHECK_INPUT(*index < *count, "command line", kOption, "'", text, "': shard ", *index,
                 " does not exist; shards are numbered from 0 to ", *count - 1);
  return {static_cast<int>(*index), static_cast<int>(*count)};
}

std::string to_string(const Shard& shard) { return std::to_string(shard.index) + "/" + std::to_string(shard.count); }

std::vector<bool> shard_members(const std::vector<ScenarioParams>& scenarios, const Shard& shard) {
  // The deal order: by id, then by the scenario's own digest, never by its place in the file.
  struct Key {
    std::string id, digest;
    std::size_t position;
  };
  std::vector<Key> keys;
  keys.reserve(scenarios.size());
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    keys.push_back({scenario_id(scenarios[i]), scenarios_digest({scenarios[i]}), i});
  // Scenarios equal in id and digest measure the same thing: which of them goes first is moot.
  std::stable_sort(keys.begin(), keys.end(),
                   [](const Key& a, const Key& b) { return a.id != b.id ? a.id < b.id : a.digest < b.digest; });
  std::vector<bool> members(scenarios.size(), false);
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (static_cast<int>(k % static_cast<std::size_t>(shard.count)) == shard.index) members[keys[k].position] = true;
  return members;
}

std::vector<ScenarioParams> shard_scenarios(const std::vector<ScenarioParams>& scenarios, const Shard& shard) {
  const auto members = shard_members(scenarios, shard);
  std::vector<ScenarioParams> out;
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    if (members[i]) out.push_back(scenarios[i]);
  return out;
}

ShardRecord shard_record(const Shard& shard, const std::vector<ScenarioParams>& all) {
  return {shard, scenarios_digest(all), all.size()};
}

std::optional<ShardRecord> recorded_shard(const RunResult& run, const std::string& where) {
  if (!run.provenance.shard) return std::nullopt;
  const ShardRecord& r = *run.provenance.shard;
  TB_CHECK_INPUT(r.shard.count >= 1 && r.shard.count <= kMaxShards, where, "provenance.shard.count",
                 "missing or not from 1 to ", kMaxShards);
  TB_CHECK_INPUT(r.shard.index >= 0 && r.shard.index < r.shard.count, where, "provenance.shard.index",
                 "missing or not from 0 to ", r.shard.count - 1);
  TB_CHECK_INPUT(!r.matrix_digest.empty(), where, "provenance.shard.matrix_digest", "missing or empty");
  return r;
}

void mark_shard(ScenarioResult& scenario, const Shard& shard, std::size_t position) {
  scenario.provenance.shard = ScenarioShard{shard.index, position};
}

std::optional<std::size_t> matrix_position(const ScenarioResult& scenario) {
  if (!scenario.provenance.shard) return std::nullopt;
  return scenario.provenance.shard->position;
}

}  // namespace tb
