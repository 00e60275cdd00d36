// scenarios/standard.json end to end on the CPU, shrunk with --set to batch 1, two measured
// steps in one round and a few in-memory samples: ResNet-50 at its full 224x224 and GPT-2 small
// on 64-token sequences (its full 1024-token context is ~0.9 TFLOP a step, minutes on one core).
// The two models run as two invocations because a matrix's dataset_options apply to every model
// and seq_len is an option of GPT-2's dataset only. Every measured scenario is ok, amp_fp16 is
// skipped with its reason, and the FLOP count reaches results.json.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

using nlohmann::json;

// The shrinking of scenarios/README.md's "Standard workloads on a CPU", less the model choice.
const std::string kCpuSettings =
    "--set device=cpu --set axes.batch=1 --set dataset_options.samples=4 "
    "--set 'steps={\"warmup\": 1, \"min\": 1, \"max\": 2, \"rounds\": 1, \"time_budget_s\": 30}'";

class StandardMatrix : public tb::test::CliTest {
 protected:
  // Runs the matrix for one model with `extra` settings; returns results.json.
  json run_model(const std::string& model, const std::string& extra) {
    const std::string out = p("out-" + model);
    EXPECT_EQ(trainbench("run " + std::string(TB_SOURCE_DIR) + "/scenarios/standard.json " + kCpuSettings +
                         " --set axes.model=" + model + " " + extra + " --out " + out +
                         " --format md --no-history"),
              0);
    return json::parse(tb::test::slurp(std::filesystem::path(out) / "results.json"));
  }
  // fp32 and amp_bf16 measured ok with FLOPs, amp_fp16 skipped (no fp16 autocast on a CPU).
  void expect_measured(const json& results, const std::string& model) {
    ASSERT_EQ(results["scenarios"].size(), 3u) << results["scenarios"].dump();
    int ok = 0;
    for (const auto& s : results["scenarios"]) {
      const auto id = s["id"].get<std::string>();
      EXPECT_EQ(id.rfind(model + "@", 0), 0u) << id;
      if (id.find("/amp_fp16/") != std::string::npos) {
        EXPECT_EQ(s["status"], "skipped") << id;
        continue;
      }
      EXPECT_EQ(s["status"], "ok") << id << ": " << s.value("message", "");
      EXPECT_GT(s["metrics"]["samples_per_s"].get<double>(), 0) << id;
      ++ok;
    }
    EXPECT_EQ(ok, 2);
    expect_valid_schema(p("out-" + model) + "/results.json");
  }
};

TEST_F(StandardMatrix, ResNet50AndGpt2SmallRunOnTheCpu) {
  const json resnet = run_model("resnet50", "");
  expect_measured(resnet, "resnet50");
  const json gpt2 = run_model("gpt2", "--set dataset_options.seq_len=64");
  expect_measured(gpt2, "gpt2");
  const std::string dump = resnet.dump() + gpt2.dump();
  EXPECT_NE(dump.find("flops"), std::string::npos) << "no FLOP count in results.json";
}

}  // namespace
