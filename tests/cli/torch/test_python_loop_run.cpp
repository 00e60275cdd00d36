// `trainbench run` on a user's Python loop end to end (docs/python-loop.md): a tiny Components
// loop (python/tests/fixtures/components_loop.py) measured by a worker process, next to the same
// matrix's failing scenario; the preflight that refuses a wrong function before anything runs.
// Skipped when this build's python cannot import torch.
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <trainbench/runner/python_loop_worker.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

using nlohmann::json;

const std::string kLoop = std::string(TB_SOURCE_DIR) + "/python/tests/fixtures/components_loop.py";

class PythonLoopRun : public tb::test::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    const std::string probe = tb::PythonRuntime::from_environment().interpreter + " -c 'import torch' >/dev/null 2>&1";
    if (std::system(probe.c_str()) != 0) GTEST_SKIP() << "this build's python cannot import torch";
  }
  std::string matrix(const json& j) const {
    const std::string path = p("matrix.json");
    std::ofstream(path) << j.dump(2);
    return path;
  }
  static json tiny(const json& user) {
    return {{"name", "py"},
            {"loop", "python"},
            {"model", "tiny_mlp"},
            {"device", "cpu"},
            {"python", {{"file", kLoop}, {"function", "build"}}},
            {"steps", {{"warmup", 1}, {"min", 3}, {"max", 6}, {"time_budget_s", 0.5}, {"rounds", 2}}},
            {"axes", {{"accumulation", {1, 2}}, {"batch", 8}, {"user", user}}}};
  }
};

TEST_F(PythonLoopRun, MeasuresTheUsersLoopAndOneFailureSinksOnlyItsScenario) {
  // fail=true raises ValueError in the user's forward: that scenario fails, the others are measured.
  const int rc = trainbench("run " + matrix(tiny({{"fail", {false, true}}})) + " --out " + p("out") +
                            " --format md,csv --no-history");
  EXPECT_EQ(rc, 1) << "a failed scenario: exit 1\n" << log();
  const json r = json::parse(tb::test::slurp(dir_ / "out" / "results.json"));
  ASSERT_EQ(r["scenarios"].size(), 4u) << log();
  int ok = 0, failed = 0;
  for (const auto& s : r["scenarios"]) {
    const std::string id = s["id"];
    EXPECT_EQ(s["params"]["loop"], "python") << id;
    EXPECT_EQ(s["params"]["python"]["file"], kLoop) << id;
    if (s["params"]["user"]["fail"] == true) {
      EXPECT_EQ(s["status"], "failed") << id;
      const std::string message = s.value("message", "");
      EXPECT_NE(message.find("ValueError: bad value in the user's forward"), std::string::npos) << message;
      EXPECT_NE(message.find("components_loop.py:"), std::string::npos) << "where in the user's file: " << message;
      ++failed;
      continue;
    }
    ASSERT_EQ(s["status"], "ok") << id << ": " << s.value("message", "");
    ++ok;
    EXPECT_NE(id.find("/python/fail=false"), std::string::npos) << id;
    EXPECT_GT(s["metrics"]["samples_per_s"].get<double>(), 0) << id;
    const json& py = s["extra"]["python_loop"];
    EXPECT_EQ(py["mode"], "components") << id;
    EXPECT_FALSE(py["torch_version"].get<std::string>().empty()) << id;
    EXPECT_GT(py["parameters"].get<long long>(), 0) << id;
    EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / py["log"].get<std::string>())) << py["log"];
  }
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(failed, 2);
  const std::string report = tb::test::slurp(dir_ / "out" / "report.md");
  EXPECT_NE(report.find("/python/fail=false"), std::string::npos);
  expect_valid_schema(dir_ / "out" / "results.json");
}

TEST_F(PythonLoopRun, AFunctionThatIsNotThereIsRefusedBeforeAnythingRuns) {
  json m = tiny({{"seed_only", {1}}});
  m["python"]["function"] = "no_such_function";
  EXPECT_EQ(trainbench("run " + matrix(m) + " --out " + p("out") + " --no-history"), 2) << log();
  EXPECT_NE(log().find("python.function"), std::string::npos) << log();
  EXPECT_NE(log().find("no_such_function"), std::string::npos) << log();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out" / "results.json")) << "nothing ran";
}

TEST_F(PythonLoopRun, CapacityRefusesAPythonLoop) {
  EXPECT_EQ(trainbench("capacity " + matrix(tiny({{"seed_only", {1}}})) + " --out " + p("cap")), 2) << log();
  EXPECT_NE(log().find("probes trainbench's C++ loop"), std::string::npos) << log();
}

// The commands around `run` take Python scenarios as they take C++ ones: the profiling pass,
// shards and merge, report, compare and its gate, history.
TEST_F(PythonLoopRun, ProfileShardMergeReportAndCompareWorkOnPythonScenarios) {
  const std::string m = matrix(tiny({{"seed_only", {1}}}));  // 2 scenarios: accumulation 1 and 2

  ASSERT_EQ(trainbench("run " + m + " --out " + p("prof") + " --profile --format none --no-history"), 0) << log();
  const json prof = json::parse(tb::test::slurp(dir_ / "prof" / "results.json"));
  for (const auto& s : prof["scenarios"]) {
    const std::string trace = s["extra"]["profile"]["traces"]["python"];
    const std::string text = tb::test::slurp(dir_ / "prof" / trace);
    EXPECT_NE(text.find("ProfilerStep#"), std::string::npos) << trace;
    EXPECT_NE(text.find("forward"), std::string::npos) << trace << ": a range per phase";
  }

  ASSERT_EQ(trainbench("run " + m + " --shard 0/2 --out " + p("s0") + " --format none --no-history"), 0) << log();
  ASSERT_EQ(trainbench("run " + m + " --shard 1/2 --out " + p("s1") + " --format none --no-history"), 0) << log();
  ASSERT_EQ(trainbench("merge " + p("s0") + " " + p("s1") + " --out " + p("merged")), 0) << log();
  const json merged = json::parse(tb::test::slurp(dir_ / "merged" / "results.json"));
  ASSERT_EQ(merged["scenarios"].size(), 2u) << log();
  EXPECT_EQ(merged["scenarios"][0]["params"]["loop"], "python");

  ASSERT_EQ(trainbench("report " + p("merged") + " --format md"), 0) << log();
  EXPECT_NE(tb::test::slurp(dir_ / "merged" / "report.md").find("/python/seed_only=1"), std::string::npos);

  // Scenarios are matched on their key, the Python file, function and user axes included;
  // a generous gate, because two separate runs drift.
  ASSERT_EQ(trainbench("compare " + p("prof") + " " + p("merged")), 0) << log();
  EXPECT_NE(log().find("2 compared"), std::string::npos) << log();

  const std::string db = p("history.sqlite");
  ASSERT_EQ(trainbench("history --history " + db + " --record " + p("merged")), 0) << log();
  ASSERT_EQ(trainbench("history --history " + db + " --changes"), 0) << log();
  EXPECT_NE(log().find("0 change points in 2 scenarios"), std::string::npos) << log();
}

}  // namespace
