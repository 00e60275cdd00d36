// `trainbench ab` end to end with the real binary on the CPU: an A/A session passes its gate with
// paired intervals, a planted slowdown on the NEW side fails it, and sides that disagree about
// the matrix or a NEW worker that is not trainbench are refused with the documented codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

namespace fs = std::filesystem;

class AbSession : public tb::test::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    // Contention thresholds out of reach: these tests check the session and its verdicts, not
    // the load meter (tested in test_runner.cpp). Every micro-batch waits 5 ms (test_delay_ms), a
    // floor that keeps the step steady when the tests share 2 cores: a bare step of about a
    // millisecond swings by half under load, and a session that should settle stays undecided.
    std::ofstream(dir_ / "ab.json") << R"({
      "name": "ab", "model": "mlp", "device": "cpu", "test_delay_ms": 5,
      "dataset_options": {"samples": 512, "features": 128}, "model_options": {"hidden": 128},
      "steps": {"warmup": 2, "min": 10, "max": 40, "time_budget_s": 0.5, "rounds": 5},
      "axes": {"batch": [32]},
      "contention": {"other_cpu_cores": 64, "steal_fraction": 1}
    })";
  }
  // A throwaway repository of 8 commits, c0 .. c7, whose matrix (at `matrix_path` in it) waits
  // 20 ms per micro-batch from the 6th commit, c5, on (5 ms before): a slower input pipeline.
  // Returns git's command prefix for it.
  std::string make_planted_repo(const std::string& repo, const std::string& matrix_path) {
    const std::string git = "git -C " + repo + " -c user.name=tb -c user.email=tb@example.org ";
    EXPECT_EQ(tb::test::run_shell("git init -q " + repo + " >> " + p("log.txt") + " 2>&1"), 0);
    const std::string matrix = tb::test::slurp(dir_ / "ab.json");
    for (int i = 0; i < 8; ++i) {
      std::string m = matrix;
      const std::string base_delay = "\"test_delay_ms\": 5";
      if (i >= 5) m.replace(m.find(base_delay), base_delay.size(), "\"test_delay_ms\": 20");
      fs::create_directories((fs::path(repo) / matrix_path).parent_path());
      std::ofstream(fs::path(repo) / matrix_path) << m;
      std::ofstream(fs::path(repo) / "log") << "commit " << i << "\n";
      EXPECT_EQ(tb::test::run_shell(git + "add -A && " + git + "commit -q -m c" + std::to_string(i) + " >> " +
                                    p("log.txt") + " 2>&1"),
                0);
    }
    return git;
  }
  std::string ab(const std::string& out) const {
    return "ab " + p("ab.json") + " --old " + TB_TRAINBENCH_BIN + " --new " + TB_TRAINBENCH_BIN + " --out " + p(out);
  }
};

TEST_F(AbSession, AaPassesPlantedSlowdownFails) {
  EXPECT_EQ(trainbench(ab("aa") + " --fail-on-regression 25"), 0);
  EXPECT_NE(log().find("paired: one A/B session"), std::string::npos);
  for (const char* side : {"old", "new"}) EXPECT_TRUE(fs::exists(p("aa") + "/" + side + "/results.json"));
  EXPECT_TRUE(fs::exists(p("aa/comparison.json")));
  // The two sides of the session are paired again by a later `compare`.
  EXPECT_EQ(trainbench("compare --json " + p("again.json") + " " + p("aa/old") + " " + p("aa/new")), 0);
  std::ifstream again(p("again.json"));
  EXPECT_EQ(nlohmann::json::parse(again).at("paired"), true);

  // 20 ms per micro-batch instead of 5 on a step of about a millisecond more: far beyond 25%.
  EXPECT_EQ(trainbench(ab("slow") + " --fail-on-regression 25 --new-set test_delay_ms=20"), 1);
  EXPECT_NE(log().find("REGRESSION"), std::string::npos);
}

TEST_F(AbSession, RefusesSidesThatDisagreeOrAreNotTrainbench) {
  // The NEW side expands the matrix into other scenarios: nothing to pair.
  EXPECT_EQ(trainbench(ab("mismatch") + " --new-set 'axes.batch=[16]'"), 2);
  EXPECT_NE(log().find("different scenarios"), std::string::npos);
  // A NEW "build" that never answers: its worker ended at start-up, which fails the gate.
  EXPECT_EQ(trainbench("ab " + p("ab.json") + " --old " + TB_TRAINBENCH_BIN + " --new /bin/true --out " + p("bogus")),
            1);
  EXPECT_NE(log().find("NEW worker (/bin/true) ended with exit code 0 during start-up"), std::string::npos);
  // Bad input on one side is reported with the side named.
  EXPECT_EQ(trainbench(ab("bad") + " --old-set steps.min=-1"), 2);
  EXPECT_NE(log().find("OLD ("), std::string::npos);
  EXPECT_EQ(trainbench("ab " + p("ab.json") + " --new " + TB_TRAINBENCH_BIN), 2);  // no --old
}

// --bisect: the exit codes `git bisect run` reads (0 good, 1 bad, 125 skip, 128 stop), so that a
// bisection over commits judges each one with a paired session.
TEST_F(AbSession, BisectExitCodesForGitBisectRun) {
  EXPECT_EQ(trainbench(ab("good") + " --bisect --fail-on-regression 25 --history " + p("paired.sqlite") +
                       " --commit c1 --label nightly"),
            0);
  EXPECT_NE(log().find("trainbench ab --bisect: exit 0 (good)"), std::string::npos) << log();
  // NEW carries its paired ratio NEW/OLD and is recorded with it, as commit c1.
  const auto good = nlohmann::json::parse(tb::test::slurp(fs::path(p("good")) / "new" / "results.json"));
  const auto& session = good["provenance"]["ab_session"];
  ASSERT_EQ(session["paired"].size(), 1u) << session;
  EXPECT_EQ(session["paired"][0]["scenario"], "mlp/fp32/w0/a1/b32");
  EXPECT_GT(session["paired"][0]["ratio"].get<double>(), 0.5);
  EXPECT_EQ(session["reference"], std::string("--old ") + TB_TRAINBENCH_BIN);
  EXPECT_EQ(good["environment"]["code_under_test"]["commit"], "c1");
  expect_valid_schema(fs::path(p("good")) / "new" / "results.json");
  ASSERT_EQ(trainbench("history --history " + p("paired.sqlite") + " --changes --metric paired_ratio"), 0);
  EXPECT_NE(log().find("0 change points in 1 scenario"), std::string::npos) << log();
  ASSERT_EQ(trainbench("compare " + p("good/old") + " " + p("good/new")), 0) << "NEW's results read back";
  // The same --out again (a CI job's folder): another session, another run in the history.
  ASSERT_EQ(trainbench(ab("good") + " --history " + p("paired.sqlite") + " --commit c2"), 0);
  ASSERT_EQ(trainbench("history --history " + p("paired.sqlite")), 0);
  const std::string listing = log().substr(log().rfind("commit"));
  EXPECT_NE(listing.find("c1"), std::string::npos) << listing;
  EXPECT_NE(listing.find("c2"), std::string::npos) << listing;
  EXPECT_EQ(
      trainbench(ab("bad") + " --bisect --fail-on-regression 25 --new-set test_delay_ms=20 --markdown " + p("bad.md")),
      1);
  EXPECT_NE(log().find("exit 1 (bad: slower)"), std::string::npos) << log();
  EXPECT_NE(tb::test::slurp(fs::path(p("bad.md"))).find("### trainbench ab: 1 of 1 scenarios failed the 25% gate"),
            std::string::npos);
  // A NEW build that does not run says nothing about speed: skip the commit.
  EXPECT_EQ(trainbench("ab " + p("ab.json") + " --old " + TB_TRAINBENCH_BIN + " --new /bin/true --out " + p("skip") +
                       " --bisect --fail-on-regression 25"),
            125);
  // Bad input stops the bisection instead of marking every commit bad.
  EXPECT_EQ(trainbench(ab("stop") + " --bisect"), 128);
  EXPECT_NE(log().find("--bisect: needs --fail-on-regression"), std::string::npos) << log();
}

// `git bisect run` with `ab --bisect` finds the commit that made training slower: a throwaway
// repository of 8 commits whose matrix waits 20 ms per micro-batch from the 6th commit on, 5 ms
// before (a slower input pipeline); each step measures the checked-out matrix (NEW) side by side with the
// first commit's settings (OLD).
TEST_F(AbSession, GitBisectRunNamesThePlantedCommit) {
  const std::string repo = p("repo");
  const std::string git = make_planted_repo(repo, "ab.json");
  const std::string step = std::string("OMP_NUM_THREADS=1 ") + TB_TRAINBENCH_BIN + " ab " + repo + "/ab.json --old " +
                           TB_TRAINBENCH_BIN + " --new " + TB_TRAINBENCH_BIN +
                           " --old-set test_delay_ms=5 --fail-on-regression 25 --bisect --out " + p("steps") +
                           "/$(git -C " + repo + " rev-parse --short HEAD)";
  ASSERT_EQ(tb::test::run_shell(git + "bisect start HEAD HEAD~7 >> " + p("log.txt") + " 2>&1 && " + git +
                                "bisect run sh -c '" + step + "' >> " + p("log.txt") + " 2>&1"),
            0);
  const std::string bisect_log = log();
  const auto verdict = bisect_log.find("is the first bad commit");
  ASSERT_NE(verdict, std::string::npos) << bisect_log;
  EXPECT_NE(bisect_log.find("    c5\n", verdict), std::string::npos) << "the 6th commit, c5";
}

// `trainbench bisect` over the same kind of repository: it measures BAD first, then asks about
// the commits between in log2 steps, each side running its own checkout's matrix, and names c5.
// With a BAD that is as fast as GOOD there is nothing to find (exit 4).
TEST_F(AbSession, BisectNamesThePlantedCommit) {
  const std::string repo = p("repo");
  make_planted_repo(repo, "bench/ab.json");
  const std::string bisect = std::string("bisect --repo ") + repo + " --matrix bench/ab.json --build true --binary " +
                             TB_TRAINBENCH_BIN + " --fail-on-regression 25 ";
  ASSERT_EQ(trainbench(bisect + "HEAD~7 HEAD --out " + p("b1")), 0) << log();
  ASSERT_EQ(tb::test::run_shell("git -C " + repo + " rev-parse HEAD~2 > " + p("c5.txt")), 0);
  std::string c5 = tb::test::slurp(p("c5.txt"));
  c5.erase(c5.find_last_not_of("\n") + 1);
  EXPECT_NE(log().find("first slower commit: " + c5 + " (c5)"), std::string::npos) << log();
  std::ifstream summary(p("b1/bisect.json"));
  const auto j = nlohmann::json::parse(summary);
  EXPECT_EQ(j.at("first_bad"), c5);
  EXPECT_EQ(j.at("steps").at(0).at("verdict"), "bad") << "BAD first";
  EXPECT_LE(j.at("steps").size(), 1u + 3u) << "BAD, then ceil(log2 7) steps";
  EXPECT_FALSE(fs::exists(p("b1/trees"))) << "worktrees removed" << log();

  EXPECT_EQ(trainbench(bisect + "HEAD~7 HEAD~3 --out " + p("b2")), 4) << log();
  EXPECT_NE(log().find("not distinguishable: "), std::string::npos) << log();
  EXPECT_EQ(trainbench(bisect + "HEAD HEAD~7 --out " + p("b3")), 2) << "GOOD after BAD";
  EXPECT_NE(log().find("is not an ancestor of"), std::string::npos) << log();
}

}  // namespace
