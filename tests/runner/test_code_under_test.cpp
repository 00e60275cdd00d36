#include <trainbench/runner/code_under_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

namespace {

using tb::CodeUnderTest;
using tb::describe_code_under_test;

tb::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

// No repository: every git call fails.
const tb::GitRunner kNoGit = [](const std::string&, const std::vector<std::string>&) -> std::optional<std::string> {
  return std::nullopt;
};

TEST(CodeUnderTest, CiVariablesWhenThereIsNoRepository) {
  const auto c = describe_code_under_test(
      "/nowhere", "", "",
      env_of({{"GITHUB_SHA", "abc123"}, {"GITHUB_REF_NAME", "42/merge"}, {"GITHUB_HEAD_REF", "feature"}}), kNoGit);
  EXPECT_EQ(c.commit, "abc123");
  EXPECT_EQ(c.source, "GITHUB_SHA");
  EXPECT_EQ(c.branch, "feature");  // the pull request's branch, not "42/merge"
  const auto gitlab = describe_code_under_test(
      "/nowhere", "", "", env_of({{"CI_COMMIT_SHA", "def456"}, {"CI_COMMIT_REF_NAME", "main"}}), kNoGit);
  EXPECT_EQ(gitlab.commit, "def456");
  EXPECT_EQ(gitlab.source, "CI_COMMIT_SHA");
  EXPECT_EQ(gitlab.branch, "main");
}

TEST(CodeUnderTest, NothingKnownIsEmpty) {
  const auto c = describe_code_under_test("/nowhere", "", "", env_of({}), kNoGit);
  EXPECT_TRUE(c.empty());
  EXPECT_FALSE(describe_code_under_test("/nowhere", "", "nightly", env_of({}), kNoGit).empty());
}

TEST(CodeUnderTest, CommandLineWinsOverEverything) {
  const auto c = describe_code_under_test("/nowhere", "feedbeef", "pr-7", env_of({{"GITHUB_SHA", "abc123"}}), kNoGit);
  EXPECT_EQ(c.commit, "feedbeef");
  EXPECT_EQ(c.label, "pr-7");
  EXPECT_EQ(c.source, "command line");
}

class GitRepository : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs the tests of this fixture side by side (-j), and a shared
    // folder removed by one under the other's git made both fail now and then.
    dir_ = std::filesystem::temp_directory_path() /
           ("tb_test_code_under_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    if (!git("init -q -b work") || !git("-c user.name=t -c user.email=t@t commit -q --allow-empty -m 'first line' "
                                        "-m 'body'"))
      GTEST_SKIP() << "git is not available to make a test repository";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  bool git(const std::string& args) const {
    return std::system(("git -C '" + dir_.string() + "' " + args + " >/dev/null 2>&1").c_str()) == 0;
  }
  std::filesystem::path dir_;
};

TEST_F(GitRepository, CommitBranchSubjectAndDirtyFlag) {
  auto c = describe_code_under_test(dir_.string(), "", "", env_of({{"GITHUB_SHA", "ignored"}}));
  EXPECT_EQ(c.source, "git");
  EXPECT_EQ(c.commit.size(), 40u);
  EXPECT_EQ(c.branch, "work");
  EXPECT_EQ(c.subject, "first line");
  EXPECT_FALSE(c.commit_time.empty());
  EXPECT_FALSE(c.dirty);

  std::ofstream(dir_ / "f.txt") << "a";
  ASSERT_TRUE(git("add f.txt"));
  c = describe_code_under_test(dir_.string(), "", "", env_of({}));
  EXPECT_TRUE(c.dirty);  // staged, not committed

  // A detached head (as CI checks out) takes the branch from the CI variables.
  ASSERT_TRUE(git("-c user.name=t -c user.email=t@t commit -q -m second"));
  ASSERT_TRUE(git("checkout -q --detach"));
  c = describe_code_under_test(dir_.string(), "", "", env_of({{"CI_COMMIT_REF_NAME", "mr-branch"}}));
  EXPECT_EQ(c.branch, "mr-branch");
  EXPECT_EQ(c.subject, "second");
}

TEST_F(GitRepository, AnAbbreviatedCommitFlagIsCompletedByGit) {
  const auto head = describe_code_under_test(dir_.string(), "", "", env_of({}));
  const auto c = describe_code_under_test(dir_.string(), head.commit.substr(0, 8), "", env_of({}));
  EXPECT_EQ(c.commit, head.commit);
  EXPECT_EQ(c.subject, "first line");
  EXPECT_EQ(c.source, "command line");
}

}  // namespace
