// `run --shard i/n` and `merge` end to end with the real binary on the CPU: three shards of a
// six-scenario matrix measure every scenario once, all with the whole matrix's baseline, and
// merged they are the unsharded run's scenario set in its order, with its digest; a bad --shard
// is a usage error, a shard with no scenario still writes valid results, and a shard resumes as
// itself only.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ShardMerge : public tb::test::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    std::ofstream(dir_ / "six.json") << R"({
      "name": "six", "model": "mlp", "device": "cpu",
      "dataset_options": {"samples": 256, "features": 32}, "model_options": {"hidden": 32},
      "steps": {"warmup": 1, "min": 3, "max": 4, "target_rel_ci": 0.5, "time_budget_s": 1, "rounds": 2},
      "axes": {"batch": [8, 16, 32], "accumulation": [1, 2]}
    })";
  }
  // `trainbench run six.json --out DIR ARGS`: its exit code.
  int run_six(const std::string& out, const std::string& args = "") {
    return trainbench("run " + p("six.json") + " --out " + p(out) + " --format none --no-history " + args);
  }
  json results(const std::string& dir) const { return json::parse(tb::test::slurp(dir_ / dir / "results.json")); }
  static std::vector<std::string> ids(const json& run) {
    std::vector<std::string> out;
    for (const auto& s : run["scenarios"]) out.push_back(s["id"].get<std::string>());
    return out;
  }
};

TEST_F(ShardMerge, ThreeShardsMergeIntoTheUnshardedScenarioSet) {
  ASSERT_EQ(run_six("whole"), 0) << log();
  const json whole = results("whole");
  ASSERT_EQ(whole["scenarios"].size(), 6u);

  std::multiset<std::string> measured;
  for (int i = 0; i < 3; ++i) {
    const std::string dir = "s" + std::to_string(i);
    ASSERT_EQ(run_six(dir, "--shard " + std::to_string(i) + "/3"), 0) << log();
    const json shard = results(dir);
    EXPECT_EQ(shard["provenance"]["shard"]["index"], i);
    EXPECT_EQ(shard["provenance"]["shard"]["count"], 3);
    EXPECT_EQ(shard["provenance"]["shard"]["matrix_digest"], whole["matrix"]["digest"]);
    EXPECT_EQ(shard["provenance"]["shard"]["scenarios"], 6);
    EXPECT_EQ(shard["baseline_id"], whole["baseline_id"]);  // chosen over the whole matrix
    EXPECT_EQ(shard["scenarios"].size(), 2u);               // 6 scenarios dealt to 3 shards
    for (const auto& s : shard["scenarios"]) {
      EXPECT_EQ(s["provenance"]["shard"]["index"], i) << s["id"];
      measured.insert(s["id"].get<std::string>());
    }
    expect_valid_schema(dir_ / dir / "results.json");
  }
  const auto whole_ids = ids(whole);
  EXPECT_EQ(measured, std::multiset<std::string>(whole_ids.begin(), whole_ids.end()));

  ASSERT_EQ(trainbench("merge " + p("s2") + " " + p("s0") + " " + p("s1") + " --out " + p("merged")), 0) << log();
  const json merged = results("merged");
  EXPECT_EQ(ids(merged), whole_ids);  // the matrix's order, whatever the order of the folders
  EXPECT_EQ(merged["matrix"]["digest"], whole["matrix"]["digest"]);
  EXPECT_EQ(merged["baseline_id"], whole["baseline_id"]);
  EXPECT_EQ(merged["extra"]["summary"]["compared"], 5) << merged["extra"]["summary"].dump();
  EXPECT_TRUE(fs::exists(dir_ / "merged" / "report.md"));
  expect_valid_schema(dir_ / "merged" / "results.json");

  // A shard resumes as itself: nothing left to do there, and another shard is refused.
  EXPECT_EQ(trainbench("run --resume " + p("s1") + " --format none --no-history"), 0) << log();
  EXPECT_NE(log().find("nothing to resume in " + p("s1")), std::string::npos) << log();
  EXPECT_EQ(trainbench("run --resume " + p("s1") + " --shard 0/3 --format none --no-history"), 2) << log();
  EXPECT_NE(log().find("holds shard 1/3 of its matrix"), std::string::npos) << log();
  // The merged folder is not a shard: resuming or merging it again is refused, naming it.
  EXPECT_EQ(trainbench("run --resume " + p("merged")), 2) << log();
  EXPECT_NE(log().find("provenance.merge: merged shards"), std::string::npos) << log();
  EXPECT_EQ(trainbench("merge " + p("merged") + " --out " + p("again")), 2) << log();
  EXPECT_NE(log().find(p("merged") + ": provenance.shard: not a shard"), std::string::npos) << log();
}

TEST_F(ShardMerge, BadShardIsAUsageErrorAndAnEmptyShardIsStillARun) {
  for (const char* bad : {"3/3", "x/2", "0/0"}) {
    EXPECT_EQ(run_six("bad", std::string("--shard ") + bad), 2) << bad << "\n" << log();
    EXPECT_NE(log().find("trainbench run: command line: --shard: '" + std::string(bad) + "'"), std::string::npos)
        << log();
  }
  EXPECT_FALSE(fs::exists(dir_ / "bad" / "results.json"));
  ASSERT_EQ(run_six("empty", "--shard 6/7"), 0) << log();  // 6 scenarios, 7 shards: the last has none
  const json empty = results("empty");
  EXPECT_TRUE(empty["scenarios"].empty());
  EXPECT_EQ(empty["provenance"]["shard"]["index"], 6);
  EXPECT_FALSE(empty["baseline_id"].get<std::string>().empty());
  expect_valid_schema(dir_ / "empty" / "results.json");
}

}  // namespace
