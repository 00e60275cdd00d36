#include <trainbench/results/merge.hpp>
#include <trainbench/support/join.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/runner/shard.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_fields.hpp>

namespace tb {

namespace {

struct LoadedShard {
  ShardResults results;
  ShardRecord record;
};

// The shards sorted by index, each checked against the lowest: one matrix, one shard count,
// one baseline, no index twice.
std::vector<LoadedShard> checked_shards(std::vector<ShardResults> given) {
  TB_CHECK_INPUT(!given.empty(), "command line", "DIR", "no shard results to merge");
  std::vector<LoadedShard> shards;
  for (auto& g : given) {
    auto record = recorded_shard(g.run, g.location);
    TB_CHECK_INPUT(record.has_value(), g.location, "provenance.shard",
                   "not a shard: this run was not started with --shard i/n");
    shards.push_back({std::move(g), *record});
  }
  std::stable_sort(shards.begin(), shards.end(), [](const LoadedShard& a, const LoadedShard& b) {
    return a.record.shard.index < b.record.shard.index;
  });
  const LoadedShard& first = shards.front();
  for (std::size_t i = 1; i < shards.size(); ++i) {
    const LoadedShard& s = shards[i];
    const std::string& where = s.results.location;
    TB_CHECK_INPUT(s.record.matrix_digest == first.record.matrix_digest, where, "provenance.shard.matrix_digest",
                   "a shard of another matrix (digest ", s.record.matrix_digest, ") than ", first.results.location,
                   " (", first.record.matrix_digest,
                   "): every shard must run the same matrix file with the same --set values");
    TB_CHECK_INPUT(s.record.shard.count == first.record.shard.count, where, "provenance.shard.count", "shard ",
                   to_string(s.record.shard), " does not go with ", first.results.location, " (shard ",
                   to_string(first.record.shard), "): different shard counts");
    TB_CHECK_INPUT(s.record.shard.index != shards[i - 1].record.shard.index, where, "provenance.shard.index", "shard ",
                   to_string(s.record.shard), " is given twice: also ", shards[i - 1].results.location);
    TB_CHECK_INPUT(s.results.run.baseline_id == first.results.run.baseline_id, where, "baseline_id", "'",
                   s.results.run.baseline_id, "', but ", first.results.location, " has '",
                   first.results.run.baseline_id, "'");
  }
  return shards;
}

// The indices of 0..count-1 no shard has.
std::vector<int> missing_indices(const std::vector<LoadedShard>& shards) {
  std::vector<int> missing;
  std::size_t at = 0;
  for (int i = 0; i < shards.front().record.shard.count; ++i) {
    if (at < shards.size() && shards[at].record.shard.index == i) ++at;
    else missing.push_back(i);
  }
  return missing;
}

// "1/4, 3/4" (the first 10, then how many more).
std::string shard_list(const std::vector<int>& indices, int count) {
  std::string out;
  for (std::size_t i = 0; i < indices.size() && i < 10; ++i)
    out += (out.empty() ? "" : ", ") + to_string(Shard{indices[i], count});
  if (indices.size() > 10) out += " and " + std::to_string(indices.size() - 10) + " more";
  return out;
}

// Every shard's scenarios in full-matrix order: by provenance.shard.position, those without one
// after them shard by shard. InputError when two scenarios claim one position.
std::vector<ScenarioResult> in_matrix_order(std::vector<LoadedShard>& shards) {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  struct Placed {
    std::size_t position;
    std::size_t shard, index;  // where it came from, for ties and errors
  };
  std::vector<Placed> placed;
  for (std::size_t s = 0; s < shards.size(); ++s)
    for (std::size_t i = 0; i < shards[s].results.run.scenarios.size(); ++i)
      placed.push_back({matrix_position(shards[s].results.run.scenarios[i]).value_or(kNone), s, i});
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.position != b.position ? a.position < b.position : a.shard < b.shard;
  });
  std::vector<ScenarioResult> out;
  for (std::size_t k = 0; k < placed.size(); ++k) {
    const Placed& p = placed[k];
    auto& scenario = shards[p.shard].results.run.scenarios[p.index];
    if (k > 0 && p.position != kNone && placed[k - 1].position == p.position) {
      const auto& other = shards[placed[k - 1].shard];
      throw InputError(shards[p.shard].results.location, "scenarios",
                       detail::concat("scenario '", scenario.id, "' stands at matrix position ", p.position,
                                      " and so does '", other.results.run.scenarios[placed[k - 1].index].id, "' of ",
                                      other.results.location, ": the shards did not divide one matrix"));
    }
    out.push_back(std::move(scenario));
  }
  return out;
}

// The peaks of every shard (each measured the peaks of its own scenarios' device and
// precision), one entry per device and precision, the lowest shard's first.
std::optional<std::vector<PeakEntry>> all_peaks(const std::vector<LoadedShard>& shards) {
  std::optional<std::vector<PeakEntry>> peaks;
  for (const auto& s : shards) {
    if (!s.results.run.peaks) continue;
    if (!peaks) peaks.emplace();
    for (const auto& entry : *s.results.run.peaks)
      if (std::none_of(peaks->begin(), peaks->end(), [&](const PeakEntry& e) { return e.same_target(entry); }))
        peaks->push_back(entry);
  }
  return peaks;
}

}  // namespace

std::vector<std::string> mixed_environment_differences(const nlohmann::json& a, const nlohmann::json& b) {
  auto diffs = environment_differences(a, b);
  const auto software = environment_field_differences(
      a, b, {"/torch", "/cuda_runtime", "/cudnn", "/build_type", "/git_revision", "/cpu/threads_used"});
  diffs.insert(diffs.end(), software.begin(), software.end());
  return diffs;
}

MixedEnvironments::MixedEnvironments(const std::string& location, const std::string& reference,
                                     const std::vector<std::string>& differences)
    : std::runtime_error(location + ": environment: measured elsewhere than " + reference + ": " +
                         join(differences, "; ") + "; pass --allow-mixed-environments to merge anyway"),
      differences_(differences) {}

MergedRun merge_shards(std::vector<ShardResults> given, const MergeOptions& options) {
  auto shards = checked_shards(std::move(given));
  const LoadedShard& first = shards.front();
  const int count = first.record.shard.count;
  MergedRun merged;

  const auto missing = missing_indices(shards);
  if (!missing.empty()) {
    const std::string what =
        "shard" + std::string(missing.size() > 1 ? "s " : " ") + shard_list(missing, count) + " missing";
    TB_CHECK_INPUT(options.allow_missing_shards, "command line", "DIR", what,
                   " (every shard of the matrix is needed; pass --allow-missing-shards to merge without)");
    merged.warnings.push_back(what + ": their scenarios are not in the merged run");
  }

  std::vector<std::string> differences;
  for (const auto& s : shards) {
    const auto diffs = mixed_environment_differences(first.results.run.environment, s.results.run.environment);
    if (diffs.empty()) continue;
    if (!options.allow_mixed_environments) throw MixedEnvironments(s.results.location, first.results.location, diffs);
    merged.warnings.push_back(s.results.location + ": environment differs from " + first.results.location + ": " +
                              join(diffs));
    for (const auto& d : diffs) differences.push_back(to_string(s.record.shard) + ": " + d);
  }

  RunResult& run = merged.run;
  const RunResult& reference = first.results.run;
  run.run_id = options.run_id.empty() ? reference.run_id + "-merged" : options.run_id;
  run.matrix_name = reference.matrix_name;
  run.matrix_file = reference.matrix_file;
  run.matrix_digest = first.record.matrix_digest;
  run.baseline_id = reference.baseline_id;
  run.environment = reference.environment;
  run.capacity = reference.capacity;
  run.extra = reference.extra;
  // The shard, resume and A/B session describe one shard's run; its ranks and isolation hold
  // for the merged run as they did for the matrix.
  run.provenance.ranks = reference.provenance.ranks;
  run.provenance.isolated = reference.provenance.isolated;
  run.peaks = reference.peaks;
  if (auto peaks = all_peaks(shards); peaks && !peaks->empty()) run.peaks = std::move(peaks);

  MergeProvenance record;
  record.count = count;
  for (const auto& s : shards)
    record.shards.push_back({s.record.shard.index, s.results.location, s.results.run.run_id,
                             field_text(s.results.run.environment, "hostname"),
                             field_text(s.results.run.environment, "started_at")});
  record.missing = missing;
  record.environment_differences = differences;
  run.provenance.merge = std::move(record);

  run.scenarios = in_matrix_order(shards);
  if (missing.empty() && run.scenarios.size() != first.record.scenarios)
    merged.warnings.push_back("the shards hold " + std::to_string(run.scenarios.size()) +
                              " scenarios, the matrix has " + std::to_string(first.record.scenarios));
  // Each shard's comparisons were against a baseline of its own run, or none: all anew.
  for (auto& s : run.scenarios) {
    s.comparison.reset();
    s.loss_parity.reset();
  }
  annotate_run(run);
  return merged;
}

}  // namespace tb
