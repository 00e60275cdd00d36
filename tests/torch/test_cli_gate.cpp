// The CI gate end to end with the real binary on CPU runs: an A/A pair passes (exit 0) and
// records a noise floor; a run with a planted slowdown (test_delay_ms) fails the gate (exit 1);
// the history database serves `compare --against last` and `history`.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/torch/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;

int run_shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

class CliGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tb::test::scratch_dir("gate");
    std::ofstream(dir_ / "gate.json") << R"({
      "name": "gate", "model": "mlp", "device": "cpu",
      "dataset_options": {"samples": 1024, "features": 256}, "model_options": {"hidden": 256},
      "steps": {"warmup": 2, "min": 15, "max": 30, "target_rel_ci": 0.01, "time_budget_s": 2},
      "axes": {"batch": [64]}
    })";
  }
  int trainbench(const std::string& args) {
    const std::string cmd = std::string(TB_TRAINBENCH_BIN) + " " + args + " >> " +
                            (dir_ / "log.txt").string() + " 2>&1";
    return run_shell(cmd);
  }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(CliGate, AaPassesPlantedSlowdownFails) {
  const std::string db = "--history " + p("history.sqlite");
  ASSERT_EQ(trainbench("run " + p("gate.json") + " --out " + p("a") + " --format none " + db), 0);
  ASSERT_EQ(trainbench("run " + p("gate.json") + " --out " + p("b") + " --format none " + db), 0);
  // 100 ms per micro-batch on a step of a few ms: over 10x slower, beyond the 90% threshold.
  ASSERT_EQ(trainbench("run " + p("gate.json") + " --out " + p("slow") +
                       " --format none --set test_delay_ms=100 " + db),
            0);

  EXPECT_EQ(trainbench("compare --aa --noise-out " + p("noise.json") + " " + p("a") + " " + p("b")), 0);
  EXPECT_TRUE(fs::exists(p("noise.json")));
  // A/A with a threshold far above this loaded machine's noise: the same build must not trip it.
  EXPECT_EQ(trainbench("compare --fail-on-regression 90 " + p("a") + " " + p("b")), 0);
  EXPECT_EQ(trainbench("compare --fail-on-regression 90 --noise " + p("noise.json") + " " + p("a") +
                       " " + p("slow")),
            1);
  // The newest recorded run (slow) against the one before it (b), from the database alone.
  EXPECT_EQ(trainbench("compare --fail-on-regression 90 --db " + p("history.sqlite") + " --against last"), 1);
  EXPECT_EQ(trainbench("history --db " + p("history.sqlite") + " --scenario mlp/fp32/w0/a1/b64"), 0);
  EXPECT_EQ(trainbench("compare " + p("a") + " " + p("missing")), 2);
}

}  // namespace
