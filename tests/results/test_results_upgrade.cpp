// results.json of schema version 1 (provenance under "extra"), read by this trainbench: a real
// version 1 run (tests/fixtures/results_v1.json: results/reference/cpu-quick as recorded)
// loads with its sections typed, its provenance keys land in provenance and users' keys stay in
// extra, and `compare` and `merge` work across the two versions.
#include <trainbench/results/results_upgrade.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/results/merge.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/shard_runs.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSource = TB_SOURCE_DIR;
const std::string kVersion1Run = kSource + "/tests/fixtures/results_v1.json";

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// What trainbench wrote before version 2 for the same run: provenance under extra.
json as_version_1(json run) {
  for (auto& [key, value] : run.at("provenance").items()) run["extra"][key] = value;
  run.erase("provenance");
  for (auto& s : run.at("scenarios")) {
    for (auto& [key, value] : s.at("provenance").items()) s["extra"][key] = value;
    s.erase("provenance");
  }
  run["schema_version"] = 1;
  return run;
}

class ResultsUpgrade : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(TB_BINARY_DIR) / "test_results_upgrade.d" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const json& j) const {
    std::ofstream(path(name)) << j.dump(1);
    return path(name);
  }
  fs::path dir_;
};

TEST_F(ResultsUpgrade, ARealVersion1RunLoadsWithEverySectionTyped) {
  ASSERT_EQ(read_json(kVersion1Run).at("schema_version"), 1);
  const RunResult run = load_results(kVersion1Run);
  EXPECT_EQ(run.schema_version, kResultsSchemaVersion);  // saved again, it is a current file
  ASSERT_EQ(run.scenarios.size(), 8u);
  ASSERT_TRUE(run.peaks && !run.peaks->empty());
  EXPECT_GT(run.peaks->front().peak.flops_per_s, 0);
  EXPECT_TRUE(run.summary);
  EXPECT_EQ(run.extra, json::object());  // every key of the file's extra is a built-in one
  EXPECT_EQ(run.provenance, RunProvenance{});
  for (const auto& s : run.scenarios) {
    EXPECT_TRUE(s.dataset && s.dataset->samples > 0) << s.id;
    EXPECT_TRUE(s.flops_per_sample && s.flops_per_sample->total() > 0) << s.id;
    EXPECT_TRUE(s.comparison && s.capacity) << s.id;
    ASSERT_TRUE(s.disturbance) << s.id;
    EXPECT_GT(s.disturbance->segments, 0) << s.id;
    EXPECT_EQ(s.extra, json::object()) << s.id;
    EXPECT_EQ(s.provenance, ScenarioProvenance{}) << s.id;
  }
  // Nothing is lost: written again and read back, the run is the same.
  save_results(run, path("results.json"));
  EXPECT_EQ(json(load_results(path("results.json"))), json(run));
}

TEST_F(ResultsUpgrade, Version1ProvenanceKeysMoveIntoProvenanceAndUserKeysStay) {
  json j = read_json(kVersion1Run);
  j["extra"]["shard"] = {{"index", 1}, {"count", 2}, {"matrix_digest", "00ff00ff00ff00ff"}, {"scenarios", 8}};
  j["extra"]["resume"] = {{"count", 2}, {"resumed_at", "2026-12-01T00:00:00Z"}, {"rerun", {"x"}}, {"forced", false}};
  j["extra"]["ab_session"] = {{"id", "ab-3"}, {"side", "new"}, {"processes", 2}};
  j["extra"]["ranks"] = {{"world_size", 2}, {"local_world_size", 2}, {"launcher", "trainbench"}};
  j["extra"]["isolated"] = true;
  j["extra"]["nightly"] = {{"build", 42}};
  j["scenarios"][0]["extra"]["shard"] = {{"index", 1}, {"position", 5}};
  j["scenarios"][0]["extra"]["measured_in_resume"] = 2;
  j["scenarios"][0]["extra"]["team"] = "perf";
  const RunResult run = load_results(write("v1.json", j));

  ASSERT_TRUE(run.provenance.shard && run.provenance.resume && run.provenance.ab_session && run.provenance.ranks);
  EXPECT_EQ(run.provenance.shard->shard, (Shard{1, 2}));
  EXPECT_EQ(run.provenance.shard->scenarios, 8u);
  EXPECT_EQ(run.provenance.resume->count, 2);
  EXPECT_EQ(run.provenance.ab_session->processes, 2);
  EXPECT_EQ(run.provenance.ranks->launcher, "trainbench");
  EXPECT_TRUE(run.provenance.isolated);
  EXPECT_EQ(run.extra, (json{{"nightly", {{"build", 42}}}}));
  const auto& s = run.scenarios.at(0);
  EXPECT_EQ(s.provenance, (ScenarioProvenance{ScenarioShard{1, 5}, 2}));
  EXPECT_EQ(s.extra, (json{{"team", "perf"}}));
  EXPECT_EQ(run.scenarios.at(1).provenance, ScenarioProvenance{});

  // The same run written by this trainbench and taken back to version 1 reads the same.
  const json current = run;
  EXPECT_EQ(current.at("provenance").size(), 5u);
  EXPECT_EQ(json(load_results(write("again.json", as_version_1(current)))), current);
  // upgraded_results alone: the version 2 layout, version included.
  const json up = upgraded_results(as_version_1(current), 1);
  EXPECT_EQ(up.at("schema_version"), 2);
  EXPECT_EQ(up.at("provenance"), current.at("provenance"));
  EXPECT_FALSE(up.at("extra").contains("shard"));
  EXPECT_EQ(up.at("scenarios").at(0).at("provenance"), current.at("scenarios").at(0).at("provenance"));
}

TEST_F(ResultsUpgrade, UnknownVersionsAreStillRefused) {
  for (int version : {0, kResultsSchemaVersion + 1}) {
    json j = read_json(kVersion1Run);
    j["schema_version"] = version;
    const std::string file = write("v.json", j);
    try {
      load_results(file);
      ADD_FAILURE() << "version " << version << " loaded";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "schema_version");
      EXPECT_NE(std::string(e.what()).find("reads 1 to " + std::to_string(kResultsSchemaVersion)), std::string::npos)
          << e.what();
    }
  }
}

// `compare OLD NEW` with OLD written by the previous version and NEW by this one.
TEST_F(ResultsUpgrade, CompareAcrossVersions) {
  const RunResult old_run = load_results(kVersion1Run);
  RunResult new_run = old_run;  // the same run measured again, 10% slower, by this trainbench
  new_run.run_id += "-again";
  for (auto& s : new_run.scenarios) {
    for (auto& t : s.step_times_s) t *= 1.1;
    for (auto& g : s.segments) g.median_s *= 1.1;
    s.step_time_s.median *= 1.1;
    s.step_time_s.ci_low *= 1.1;
    s.step_time_s.ci_high *= 1.1;
  }
  save_results(new_run, path("results.json"));
  ASSERT_EQ(read_json(path("results.json")).at("schema_version"), kResultsSchemaVersion);
  const RunResult loaded_new = load_results(path("results.json"));
  for (const auto& [a, b] : {std::pair{&old_run, &loaded_new}, std::pair{&loaded_new, &old_run}}) {
    const RunComparison c = compare_runs(*a, *b);
    EXPECT_EQ(c.compared, 8);
    ASSERT_EQ(c.scenarios.size(), 8u);
    const double expected = a == &old_run ? 10.0 : -100.0 / 11.0;
    for (const auto& s : c.scenarios) EXPECT_NEAR(s.change_pct, expected, 0.5) << s.id;
  }
}

// `merge` of shards written by either version: the same merged run.
TEST_F(ResultsUpgrade, MergeAcrossVersions) {
  const auto shards = testing::shards_of(testing::full_matrix(), 2);
  std::vector<ShardResults> mixed;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const json written = shards[i].run;
    const std::string file = write("shard-" + std::to_string(i) + ".json", i == 1 ? as_version_1(written) : written);
    mixed.push_back({shards[i].location, load_results(file)});
  }
  ASSERT_EQ(read_json(path("shard-1.json")).at("schema_version"), 1);
  const MergedRun from_mixed = merge_shards(mixed);
  const MergedRun from_current = merge_shards(shards);
  EXPECT_TRUE(from_mixed.warnings.empty());
  EXPECT_EQ(json(from_mixed.run), json(from_current.run));
  ASSERT_TRUE(from_mixed.run.provenance.merge);
  EXPECT_EQ(from_mixed.run.provenance.merge->shards.size(), 2u);
  for (const auto& s : from_mixed.run.scenarios) EXPECT_TRUE(s.provenance.shard) << s.id;
}

// Each version's file against its own schema (python3 jsonschema).
TEST_F(ResultsUpgrade, EachVersionValidatesAgainstItsSchema) {
  if (std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 jsonschema module not available";
  const auto validate = [&](const std::string& schema, const std::string& file) {
    const std::string cmd = "python3 '" + kSource + "/scripts/validate_results.py' '" + kSource + "/schema/" + schema +
                            "' '" + file + "' >'" + path("validate.log") + "' 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  EXPECT_EQ(validate("results.v1.schema.json", kVersion1Run), 0);
  EXPECT_EQ(validate("results.schema.json", kVersion1Run), 1);  // a version 1 file is not a current one
  save_results(load_results(kVersion1Run), path("results.json"));
  EXPECT_EQ(validate("results.schema.json", path("results.json")), 0);
}

}  // namespace
}  // namespace tb
