// `run --isolate` end to end with the real binary on the CPU: a planted segfault, abort or
// std::terminate in one scenario of a three-scenario matrix makes that scenario "crashed" (the
// signal and the end of its stderr in the message) while the other two finish ok, and `run`
// exits 1. Without --isolate the same crash kills the run's process, and its parent finishes the
// matrix isolated from what was saved (runner/crash_supervisor.hpp): the same outcome, with the
// crash said once on stderr. A planted hang ends the same way after the hang timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class Isolate : public tb::test::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    // Three scenarios (a1, a2, a3) in 3 rounds; a2 crashes before step 4. Round 1 is its warm-up
    // step and 1-2 measured steps (segment max: ceil(5 / 3)), so round 1 is saved with a2 in
    // progress and the crash comes in a later round.
    std::ofstream(dir_ / "tiny.json") << R"({
      "name": "tiny-crash", "model": "mlp", "device": "cpu",
      "dataset_options": {"samples": 256, "features": 32}, "model_options": {"hidden": 32},
      "steps": {"warmup": 1, "min": 3, "max": 5, "target_rel_ci": 0.5, "time_budget_s": 1, "rounds": 3},
      "axes": {"accumulation": [1, 2, 3], "batch": [16]}
    })";
  }
  // `trainbench run tiny.json ARGS`: its exit code, or 128 + N when killed by signal N.
  int run_tiny(const std::string& args) {
    return trainbench("run " + p("tiny.json") + " --out " + p("out") + " --format md --no-history " + args);
  }
  json results() const { return json::parse(tb::test::slurp(dir_ / "out" / "results.json")); }
  static std::string crash(const std::string& kind) {
    return "--set 'test_crash={\"scenario\": \"/a2/\", \"kind\": \"" + kind + "\", \"at_step\": 4}'";
  }
  // a1 and a3 ok, a2 crashed with `signal` and `stderr_words` in its message; returns it.
  std::string expect_one_crashed(const std::string& signal, const std::string& stderr_words) {
    json r = results();
    EXPECT_EQ(r["scenarios"].size(), 3u);
    std::string message;
    for (const auto& s : r["scenarios"]) {
      const auto id = s["id"].get<std::string>();
      if (id.find("/a2/") != std::string::npos) {
        EXPECT_EQ(s["status"], "crashed") << s.dump();
        message = s["message"].get<std::string>();
      } else {
        EXPECT_EQ(s["status"], "ok") << id << ": " << s["message"];
        EXPECT_GT(s["metrics"]["samples_per_s"].get<double>(), 0) << id;
      }
    }
    EXPECT_NE(message.find(signal), std::string::npos) << message;
    EXPECT_NE(message.find(stderr_words), std::string::npos) << message;
    EXPECT_EQ(r["extra"]["summary"]["crashed"], 1) << r["extra"]["summary"].dump();
    EXPECT_EQ(r["provenance"]["isolated"], true);
    // The workers' stderr files are gone; the report names the crash.
    for (const auto& e : fs::directory_iterator(dir_ / "out"))
      EXPECT_EQ(e.path().filename().string().rfind(".worker-", 0), std::string::npos) << e.path();
    const std::string report = tb::test::slurp(dir_ / "out" / "report.md");
    EXPECT_NE(report.find("1 crashed"), std::string::npos) << report;
    return message;
  }
};

TEST_F(Isolate, SegfaultIsOneCrashedScenario) {
  EXPECT_EQ(run_tiny("--isolate " + crash("segv")), 1);
  const std::string message = expect_one_crashed("signal 11", "test_crash: segv in scenario mlp/fp32/w0/a2/b16");
  EXPECT_NE(message.find("during round "), std::string::npos) << message;
  EXPECT_EQ(message.find("during round 1"), std::string::npos) << message;
  EXPECT_NE(log().find("crashed: its worker process ended with signal 11"), std::string::npos) << log();
  // The result file validates against the schema with the new status in it.
  expect_valid_schema(dir_ / "out" / "results.json");
}

TEST_F(Isolate, AbortFromTheMatrixSetting) {
  EXPECT_EQ(run_tiny("--set isolate=true " + crash("abort")), 1);
  expect_one_crashed("signal 6", "test_crash: abort");
}

TEST_F(Isolate, TerminateQuotesTheRuntimesLastWords) {
  EXPECT_EQ(run_tiny("--isolate " + crash("terminate")), 1);
  expect_one_crashed("signal 6", "terminate called");
}

TEST_F(Isolate, WithoutIsolationACrashEndsOneScenarioNotTheRun) {
  EXPECT_EQ(run_tiny(crash("segv")), 1);
  expect_one_crashed("signal 11", "test_crash: segv in scenario mlp/fp32/w0/a2/b16");
  EXPECT_NE(log().find("the run's process ended with signal 11"), std::string::npos) << log();
  // --no-isolate (over the matrix's "isolate") runs in one process until a crash, then the same.
  EXPECT_EQ(run_tiny("--force --set isolate=true --no-isolate " + crash("abort")), 1);
  expect_one_crashed("signal 6", "test_crash: abort");
}

// A crash in round 1, before anything was saved: the matrix is measured again from the start,
// isolated, into the same folder.
TEST_F(Isolate, ACrashBeforeTheFirstSaveStartsTheRunAgainIsolated) {
  EXPECT_EQ(run_tiny("--set 'test_crash={\"scenario\": \"/a2/\", \"kind\": \"segv\", \"at_step\": 0}'"), 1);
  json r = results();
  ASSERT_EQ(r["scenarios"].size(), 3u);
  for (const auto& s : r["scenarios"])
    EXPECT_EQ(s["status"], s["id"].get<std::string>().find("/a2/") != std::string::npos ? "crashed" : "ok") << s.dump();
  EXPECT_EQ(r["provenance"]["isolated"], true);
}

// A hang is a crash that does not end the process: an isolated worker that gives no reply for
// hang_timeout_s is killed and its scenario is "crashed"; without isolation the run's process
// falls silent, is killed by `run`, and the matrix is finished isolated as after a crash.
TEST_F(Isolate, AHangIsOneCrashedScenarioAfterTheHangTimeout) {
  EXPECT_EQ(run_tiny("--isolate --set hang_timeout_s=3 " + crash("hang")), 1);
  const std::string message = expect_one_crashed("signal 9", "test_crash: hang in scenario mlp/fp32/w0/a2/b16");
  EXPECT_NE(message.find("after 3 s without progress (a hang"), std::string::npos) << message;
  EXPECT_EQ(run_tiny("--force --set hang_timeout_s=3 " + crash("hang")), 1);
  expect_one_crashed("signal 9", "test_crash: hang");
  EXPECT_NE(log().find("the run's process showed no progress for 3 s (the matrix's hang_timeout_s) and was killed"),
            std::string::npos)
      << log();
}

TEST_F(Isolate, CleanIsolatedRunIsOk) {
  EXPECT_EQ(run_tiny("--isolate"), 0);
  json r = results();
  ASSERT_EQ(r["scenarios"].size(), 3u);
  // Segments are dated from the parent's run start on one clock: every segment of round 1
  // started before every segment of round 2, whichever worker measured it.
  double last_of_round1 = 0, first_of_round2 = 1e9;
  for (const auto& s : r["scenarios"]) {
    EXPECT_EQ(s["status"], "ok") << s.dump();
    for (const auto& seg : s["samples"]["segments"]) {
      const double t = seg["started_s"].get<double>();
      if (seg["round"] == 0) last_of_round1 = std::max(last_of_round1, t);
      if (seg["round"] == 1) first_of_round2 = std::min(first_of_round2, t);
    }
  }
  EXPECT_LT(last_of_round1, first_of_round2);
}

}  // namespace
