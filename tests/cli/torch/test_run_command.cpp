// `trainbench run` end to end with the real binary on the CPU: what it refuses before anything is
// measured (exit 2, naming the file and field or the folder and the way out) and what it says
// about the baseline (issue 26):
//   - --out naming a folder that holds a run: refused unless --force (which replaces it);
//   - a batch larger than the dataset: refused before the first scenario, naming the field;
//   - a baseline key whose axis --set changed drops out of the baseline, with a line saying so;
//     a baseline that still matches no scenario is refused, naming the axis.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class RunCommand : public tb::test::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    // Two scenarios, one measured step each: a second or so.
    std::ofstream(dir_ / "tiny.json") << R"({
      "name": "tiny", "model": "mlp", "device": "cpu",
      "dataset_options": {"samples": 64, "features": 16}, "model_options": {"hidden": 16},
      "steps": {"warmup": 1, "min": 1, "max": 1, "time_budget_s": 1, "rounds": 1},
      "capacity": {"measure_peak": false},
      "axes": {"batch": [8, 16]},
      "baseline": {"batch": 16}
    })";
  }
  int run_tiny(const std::string& args) {
    return trainbench("run " + p("tiny.json") + " --format none --no-history " + args);
  }
  std::string run_id_in(const std::string& folder) const {
    return json::parse(tb::test::slurp(dir_ / folder / "results.json"))["run_id"].get<std::string>();
  }
};

TEST_F(RunCommand, AnOutFolderHoldingARunIsRefusedUnlessForce) {
  ASSERT_EQ(run_tiny("--out " + p("out")), 0) << log();
  const std::string first = run_id_in("out");
  const auto written = fs::last_write_time(dir_ / "out" / "results.json");

  const std::size_t before = log().size();
  EXPECT_EQ(run_tiny("--out " + p("out")), 2);
  const std::string refusal = log().substr(before);
  EXPECT_NE(refusal.find("--out: " + p("out") + " holds run " + first +
                         " (matrix tiny, finished): nothing was run; "
                         "give another --out, or --force to replace it"),
            std::string::npos)
      << refusal;
  EXPECT_EQ(refusal.find("[1/"), std::string::npos) << "nothing measured\n" << refusal;
  EXPECT_EQ(run_id_in("out"), first);
  EXPECT_EQ(fs::last_write_time(dir_ / "out" / "results.json"), written) << "the first run's results are untouched";

  ASSERT_EQ(run_tiny("--out " + p("out") + " --force"), 0) << log();
  EXPECT_NE(log().find("replacing run " + first), std::string::npos);
  EXPECT_NE(run_id_in("out"), first);

  // A run that did not finish: the refusal says how to finish it.
  json results = json::parse(tb::test::slurp(dir_ / "out" / "results.json"));
  results["scenarios"][0]["status"] = "interrupted";
  std::ofstream(dir_ / "out" / "results.json") << results.dump();
  const std::size_t again = log().size();
  EXPECT_EQ(run_tiny("--out " + p("out")), 2);
  EXPECT_NE(log().substr(again).find("(matrix tiny, not finished): nothing was run; finish it with trainbench run "
                                     "--resume " +
                                     p("out") + ", give another --out, or --force to replace it"),
            std::string::npos)
      << log().substr(again);

  // --force names the folder to replace; a new results/<run-id> never holds a run.
  EXPECT_EQ(run_tiny("--force"), 2);
  EXPECT_NE(log().find("--force: only goes with --resume DIR or --out DIR"), std::string::npos);
}

// A shared history server that cannot be reached: the run is measured and saved, the recording
// fails with exit 5 (output), and no message shows the URL's password.
TEST_F(RunCommand, AnUnreachableHistoryServerExits5KeepingTheResults) {
  const std::string url = "postgresql://ci:s3cret@127.0.0.1:1/trainbench?connect_timeout=3";
  EXPECT_EQ(trainbench("run " + p("tiny.json") + " --format none --out " + p("out") + " --history '" + url + "'"), 5)
      << log();
  EXPECT_TRUE(fs::exists(dir_ / "out" / "results.json")) << "measured results kept";
  EXPECT_EQ(log().find("s3cret"), std::string::npos) << log();
  EXPECT_NE(log().find("ci:***@127.0.0.1:1"), std::string::npos) << log();
}

TEST_F(RunCommand, ABatchLargerThanTheDatasetIsRefusedBeforeAnythingRuns) {
  EXPECT_EQ(run_tiny("--out " + p("out") + " --set 'axes.batch=[8,128]'"), 2);
  EXPECT_NE(log().find(p("tiny.json") + ": dataset_options.samples: 64 samples are fewer than the micro-batch 128 of "
                                        "mlp/fp32/w0/a1/b128"),
            std::string::npos)
      << log();
  EXPECT_EQ(log().find("[1/"), std::string::npos) << "no scenario started";
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));
}

TEST_F(RunCommand, ABaselineKeyWhoseAxisSetChangedDropsOutWithALine) {
  ASSERT_EQ(run_tiny("--out " + p("out") + " --set 'axes.batch=[4,8]'"), 0) << log();
  EXPECT_NE(log().find("baseline: batch 16 dropped out: --set changed axes.batch to 4, 8"), std::string::npos) << log();
  EXPECT_EQ(json::parse(tb::test::slurp(dir_ / "out" / "results.json"))["baseline_id"], "mlp/fp32/w0/a1/b4");

  // Written in the file (or set on the command line), a value the axis lacks is refused.
  EXPECT_EQ(run_tiny("--out " + p("refused") + " --set baseline.batch=32"), 2);
  EXPECT_NE(log().find(p("tiny.json") + ": baseline.batch: 32 matches no scenario: axes.batch has 8, 16"),
            std::string::npos)
      << log();
  EXPECT_EQ(trainbench("list " + p("tiny.json") + " --set 'axes.batch=[32]'"), 0);
  EXPECT_NE(log().find("baseline: batch 16 dropped out: --set changed axes.batch to 32"), std::string::npos);
}

}  // namespace
