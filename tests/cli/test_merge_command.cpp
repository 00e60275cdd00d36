// trainbench merge end to end on synthetic shard results: the merged results.json and reports,
// and the exit codes of what it refuses (2 bad input, 3 mixed environments).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/cli/commands.hpp>
#include <trainbench/results/history.hpp>
#include "tests/helpers/shard_runs.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tb;
using tb::cli::cmd_merge;

class MergeCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb_test_merge_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The shards of the test matrix saved as DIR/shard-i/results.json; their folders.
  std::vector<std::string> write_shards(int count) {
    std::vector<std::string> dirs;
    for (auto& s : tb::testing::shards_of(tb::testing::full_matrix(), count)) {
      const auto dir = dir_ / ("shard-" + std::to_string(s.run.provenance.shard->shard.index));
      save_results(s.run, (dir / "results.json").string());
      dirs.push_back(dir.string());
    }
    return dirs;
  }

  int merge(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    return cmd_merge(args, out_, err_);
  }

  std::string out_dir() const { return (dir_ / "merged").string(); }

  fs::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(MergeCommand, WritesTheMergedResultsAndReports) {
  auto args = write_shards(3);
  args.insert(args.end(), {"--out", out_dir(), "--history", (dir_ / "h.sqlite").string()});
  ASSERT_EQ(merge(args), 0) << err_.str();
  const RunResult run = load_results(out_dir());
  EXPECT_EQ(run.scenarios.size(), tb::testing::full_matrix().size());
  EXPECT_EQ(run.matrix_digest, scenarios_digest(tb::testing::full_matrix()));
  EXPECT_TRUE(run.summary.has_value());
  for (const char* report : {"report.md", "results.csv", "report.html", "gbench.json"})
    EXPECT_TRUE(fs::exists(fs::path(out_dir()) / report)) << report << "\n" << out_.str();
  EXPECT_NE(out_.str().find("merged 3 shards, 7 scenarios"), std::string::npos) << out_.str();
  EXPECT_TRUE(History((dir_ / "h.sqlite").string()).find(run.run_id).has_value());
}

// The shards' and the merged results.json, with their extra.shard and extra.merge sections,
// match schema/results.schema.json (skipped without python3-jsonschema).
TEST_F(MergeCommand, ShardAndMergedResultsMatchTheSchema) {
  auto args = write_shards(3);
  std::vector<std::string> files;
  for (const auto& d : args) files.push_back((fs::path(d) / "results.json").string());
  args.insert(args.end(), {"--out", out_dir(), "--format", "none"});
  ASSERT_EQ(merge(args), 0) << err_.str();
  files.push_back((fs::path(out_dir()) / "results.json").string());
  for (const auto& file : files) {
    ASSERT_TRUE(fs::exists(file)) << file;  // the script says 2 for a missing file too
    const std::string cmd = std::string("python3 ") + TB_SOURCE_DIR + "/scripts/validate_results.py " + TB_SOURCE_DIR +
                            "/schema/results.schema.json " + file;
    const int status = std::system(cmd.c_str());
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (rc == 2) GTEST_SKIP() << "python3-jsonschema not installed";
    EXPECT_EQ(rc, 0) << file;
  }
}

TEST_F(MergeCommand, HelpSaysWhatItMergesAndHowShardsCount) {
  ASSERT_EQ(merge({"--help"}), 0);
  const std::string help = out_.str();
  for (const char* text : {"usage: trainbench merge DIR... --out DIR [options]", "--shard i/n", "i = 0 .. n-1",
                           "--allow-mixed-environments", "--allow-missing-shards", "3 shards from different"})
    EXPECT_NE(help.find(text), std::string::npos) << text << "\n" << help;
}

TEST_F(MergeCommand, FormatNoneWritesOnlyResults) {
  auto args = write_shards(2);
  args.insert(args.end(), {"--out", out_dir(), "--format", "none"});
  ASSERT_EQ(merge(args), 0) << err_.str();
  EXPECT_TRUE(fs::exists(fs::path(out_dir()) / "results.json"));
  EXPECT_FALSE(fs::exists(fs::path(out_dir()) / "report.md"));
}

TEST_F(MergeCommand, BadInputExitsTwoNamingWhatIsWrong) {
  const auto dirs = write_shards(3);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const Case cases[] = {
      {{dirs[0], dirs[1], dirs[2]}, "--out: needed"},
      {{"--out", out_dir()}, "DIR: name the shards"},
      {{dirs[0], dirs[2], "--out", out_dir()}, "shard 1/3 missing"},
      {{dirs[0], dirs[1], dirs[2], dirs[1], "--out", out_dir()}, "given twice"},
      {{dirs[0], dirs[1], dirs[2], "--out", dirs[1] + "/"}, "give the merged results a folder of their own"},
      {{dirs[0], dirs[1], (dir_ / "nowhere").string(), "--out", out_dir()}, "nowhere"},
      {{dirs[0], dirs[1], dirs[2], "--out", out_dir(), "--format", "pdf"}, "--format"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(merge(c.args), 2) << c.says << "\n" << err_.str();
    EXPECT_NE(err_.str().find("trainbench merge: "), std::string::npos) << err_.str();
    EXPECT_NE(err_.str().find(c.says), std::string::npos) << c.says << "\n" << err_.str();
  }
  EXPECT_FALSE(fs::exists(fs::path(out_dir()) / "results.json"));
}

TEST_F(MergeCommand, MissingShardMergesWhenAllowedWithAWarning) {
  const auto dirs = write_shards(3);
  ASSERT_EQ(merge({dirs[0], dirs[2], "--out", out_dir(), "--allow-missing-shards"}), 0) << err_.str();
  EXPECT_NE(err_.str().find("warning: shard 1/3 missing"), std::string::npos) << err_.str();
  const auto merged = load_results(out_dir());
  ASSERT_TRUE(merged.provenance.merge);
  EXPECT_EQ(merged.provenance.merge->missing, std::vector<int>{1});
}

TEST_F(MergeCommand, MixedEnvironmentsExitThreeUnlessAllowed) {
  const auto dirs = write_shards(2);
  RunResult other = load_results(dirs[1]);
  other.environment["cpu"]["model"] = "Other CPU 1";
  save_results(other, (fs::path(dirs[1]) / "results.json").string());
  EXPECT_EQ(merge({dirs[0], dirs[1], "--out", out_dir()}), 3);
  EXPECT_NE(err_.str().find(dirs[1] + ": environment"), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("cpu.model"), std::string::npos) << err_.str();
  EXPECT_FALSE(fs::exists(fs::path(out_dir()) / "results.json"));
  EXPECT_EQ(merge({dirs[0], dirs[1], "--out", out_dir(), "--allow-mixed-environments"}), 0) << err_.str();
  EXPECT_NE(err_.str().find("warning: "), std::string::npos) << err_.str();
}

}  // namespace
