// When `run --resume` refuses: a matrix that now measures something else, or other hardware.
// Which scenarios it measures again: everything but ok and skipped.
#include <trainbench/runner/resume_check.hpp>

#include <gtest/gtest.h>

namespace {

using tb::ScenarioStatus;

tb::RunResult saved_run() {
  tb::RunResult run;
  run.run_id = "r1";
  run.matrix_digest = "00000000000000aa";
  run.environment = {{"cpu", {{"model", "AMD EPYC"}}}, {"device", "cpu"}, {"gpu", nlohmann::json::array()}};
  return run;
}

TEST(ResumeCheck, SameMatrixAndHardwareResume) {
  const auto run = saved_run();
  EXPECT_TRUE(tb::resume_refusals(run, run.matrix_digest, run.environment).empty());
}

TEST(ResumeCheck, ChangedMatrixIsRefusedNamingTheDigest) {
  const auto reasons = tb::resume_refusals(saved_run(), "00000000000000bb", saved_run().environment);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("matrix.digest"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[0].find("00000000000000aa"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[0].find("00000000000000bb"), std::string::npos) << reasons[0];
}

TEST(ResumeCheck, OtherHardwareIsRefusedNamingTheField) {
  auto env = saved_run().environment;
  env["cpu"]["model"] = "Intel Xeon";
  nlohmann::json gpu;
  gpu["name"] = "NVIDIA H200";
  env["gpu"] = nlohmann::json::array({gpu});
  const auto reasons = tb::resume_refusals(saved_run(), saved_run().matrix_digest, env);
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[0].find("cpu.model"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[1].find("H200"), std::string::npos) << reasons[1];
}

tb::ScenarioResult scenario(ScenarioStatus status, const std::string& stop_reason = "rounds") {
  tb::ScenarioResult r;
  r.status = status;
  r.stop_reason = stop_reason;
  return r;
}

TEST(ResumeCheck, EverythingButOkAndSkippedIsMeasuredAgain) {
  EXPECT_FALSE(tb::needs_rerun(scenario(ScenarioStatus::ok)));
  EXPECT_FALSE(tb::needs_rerun(scenario(ScenarioStatus::skipped, "")));
  for (auto s : {ScenarioStatus::failed, ScenarioStatus::oom, ScenarioStatus::diverged, ScenarioStatus::interrupted})
    EXPECT_TRUE(tb::needs_rerun(scenario(s))) << tb::to_string(s);
}

TEST(ResumeCheck, AMeasurementSavedInProgressIsMeasuredAgain) {
  // A run killed outright (SIGKILL) leaves its running scenarios "ok" but "in_progress".
  EXPECT_TRUE(tb::needs_rerun(scenario(ScenarioStatus::ok, "in_progress")));
}

}  // namespace
