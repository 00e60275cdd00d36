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
    // the load meter (tested in test_runner.cpp).
    std::ofstream(dir_ / "ab.json") << R"({
      "name": "ab", "model": "mlp", "device": "cpu",
      "dataset_options": {"samples": 512, "features": 128}, "model_options": {"hidden": 128},
      "steps": {"warmup": 2, "min": 10, "max": 40, "time_budget_s": 0.5, "rounds": 5},
      "axes": {"batch": [32]},
      "contention": {"other_cpu_cores": 64, "steal_fraction": 1}
    })";
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

  // 20 ms per micro-batch on a step of about a millisecond: far beyond 25%.
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

}  // namespace
