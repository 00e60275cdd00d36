// Data-parallel runs end to end with the real binary on this CPU: `run --nproc-per-node 2`
// measures world sizes 1 and 2 (and 1 through the reducer), records per-rank timings and the
// communication split; the same matrix runs under torchrun --no-python; without ranks a world
// size of 2 is skipped with the way to get them; a rank killed mid-run ends the run with a clear
// error well within the timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class DistributedRun : public tb::test::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_matrix("ddp.json", R"("axes": {"world_size": [1, 2], "reducer": ["auto", "always"], "batch": 32},
      "steps": {"warmup": 1, "min": 3, "max": 6, "target_rel_ci": 0.5, "time_budget_s": 1, "rounds": 2})");
  }
  void write_matrix(const std::string& name, const std::string& rest) const {
    std::ofstream(dir_ / name) << R"({"name": "ddp-test", "model": "mlp", "device": "cpu",
      "dataset_options": {"samples": 512, "features": 32}, "model_options": {"hidden": 64}, )"
                               << rest << "}";
  }
  int run(const std::string& matrix, const std::string& args) {
    return trainbench("run " + p(matrix) + " --out " + p("out") + " --format md,csv --no-history " + args);
  }
  json results() const { return json::parse(tb::test::slurp(dir_ / "out" / "results.json")); }
  static const json& scenario(const json& r, const std::string& id) {
    for (const auto& s : r["scenarios"])
      if (s["id"] == id) return s;
    static const json none;
    ADD_FAILURE() << "no scenario " << id << " in " << r["scenarios"].size() << " scenarios";
    return none;
  }
  // The checks every data-parallel run must pass, whoever launched it.
  void expect_measured_on_two_ranks(const json& r) {
    const json& single = scenario(r, "mlp/fp32/w0/a1/b32");
    const json& alone = scenario(r, "mlp/fp32/w0/a1/b32/reducer-always");
    const json& two = scenario(r, "mlp/fp32/w0/a1/b32/r2");
    for (const json* s : {&single, &alone, &two}) EXPECT_EQ((*s)["status"], "ok") << s->dump().substr(0, 400);
    EXPECT_FALSE(single["extra"].contains("data_parallel"));
    ASSERT_TRUE(two["extra"].contains("data_parallel")) << two["extra"].dump();
    const json& dp = two["extra"]["data_parallel"];
    EXPECT_EQ(dp["backend"], "gloo");
    EXPECT_EQ(dp["world_size"], 2);
    EXPECT_EQ(dp["global_batch"], 64);
    EXPECT_GT(dp["gradient_bytes"].get<double>(), 0);
    EXPECT_GE(dp["exposed_comm_s"].get<double>(), 0);
    EXPECT_GE(dp["overlapped_comm_s"].get<double>(), 0);
    EXPECT_GT(dp["busbw_bytes_per_s"].get<double>(), 0);
    ASSERT_EQ(dp["ranks"].size(), 2u);
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(dp["ranks"][rank]["rank"], rank);
      EXPECT_GT(dp["ranks"][rank]["samples_per_s"].get<double>(), 0);
    }
    // Global throughput counts both ranks' samples.
    EXPECT_GT(two["metrics"]["samples_per_s"].get<double>(), dp["ranks"][0]["samples_per_s"].get<double>());
    EXPECT_EQ(alone["extra"]["data_parallel"]["world_size"], 1);
    bool has_comm = false;
    for (const auto& phase : two["metrics"]["phases"]) has_comm |= phase["name"] == "comm";
    EXPECT_TRUE(has_comm) << two["metrics"]["phases"].dump();
  }
};

TEST_F(DistributedRun, NprocPerNodeRunsWorldSizesOneAndTwo) {
  ASSERT_EQ(run("ddp.json", "--nproc-per-node 2"), 0) << log();
  const json r = results();
  EXPECT_EQ(r["scenarios"].size(), 3u);
  EXPECT_EQ(r["provenance"]["ranks"]["world_size"], 2);
  EXPECT_EQ(r["provenance"]["ranks"]["launcher"], "trainbench");
  expect_measured_on_two_ranks(r);
  expect_valid_schema(dir_ / "out" / "results.json");
}

// Every rank profiles the same window (its steps all-reduce); rank 0 folds the ranks' host traces
// into one with a process per rank.
TEST_F(DistributedRun, ProfilingWritesOneTraceWithAProcessPerRank) {
  write_matrix("profiled.json", R"("axes": {"world_size": 2, "batch": 32},
    "profile": {"enabled": true, "window": 3, "host_trace": true},
    "steps": {"warmup": 1, "min": 3, "max": 6, "target_rel_ci": 0.5, "time_budget_s": 1, "rounds": 2})");
  ASSERT_EQ(run("profiled.json", "--nproc-per-node 2"), 0) << log();
  const json r = results();
  const json& traces = r["scenarios"][0]["extra"]["profile"]["traces"];
  ASSERT_TRUE(traces.contains("ranks")) << traces.dump();
  EXPECT_TRUE(traces.contains("host.rank1")) << traces.dump();
  const json merged = json::parse(tb::test::slurp(dir_ / "out" / traces["ranks"].get<std::string>()));
  std::set<std::string> processes;
  for (const auto& e : merged["traceEvents"])
    if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
  EXPECT_TRUE(processes.count("rank 0: Host (trainbench)")) << merged["otherData"].dump();
  EXPECT_TRUE(processes.count("rank 1: Host (trainbench)")) << merged["otherData"].dump();
  EXPECT_TRUE(merged["otherData"]["aligned"].get<bool>());
}

TEST_F(DistributedRun, WithoutRanksWorldSizeTwoIsSkippedWithTheWayToRunIt) {
  ASSERT_EQ(run("ddp.json", ""), 0) << log();
  const json r = results();
  const json& two = scenario(r, "mlp/fp32/w0/a1/b32/r2");
  EXPECT_EQ(two["status"], "skipped");
  EXPECT_NE(two["message"].get<std::string>().find("--nproc-per-node"), std::string::npos) << two["message"];
  // The reducer alone needs no other rank.
  EXPECT_EQ(scenario(r, "mlp/fp32/w0/a1/b32/reducer-always")["status"], "ok");
}

TEST_F(DistributedRun, RunsUnderTorchrun) {
  const fs::path torchrun =
      fs::path(TB_TORCH_LIB_DIR).parent_path().parent_path().parent_path().parent_path().parent_path() / "bin" /
      "torchrun";
  if (!fs::exists(torchrun)) GTEST_SKIP() << "no torchrun beside this LibTorch (" << torchrun << ")";
  const std::string cmd = "OMP_NUM_THREADS=1 " + torchrun.string() + " --standalone --nproc-per-node=2 --no-python " +
                          TB_TRAINBENCH_BIN + " run " + p("ddp.json") + " --out " + p("out") +
                          " --format md --no-history >> " + p("log.txt") + " 2>&1";
  ASSERT_EQ(tb::test::run_shell(cmd), 0) << log();
  const json r = results();
  EXPECT_EQ(r["provenance"]["ranks"]["launcher"], "torchrun");
  expect_measured_on_two_ranks(r);
}

// Rank 1 is killed (SIGKILL) while the two ranks train: rank 0's next collective fails at once,
// the scenario is "failed" with the reason, the launcher names the dead rank, and the run ends
// long before the 60 s timeout.
TEST_F(DistributedRun, KilledRankEndsTheRunWithAClearError) {
  write_matrix("long.json", R"("axes": {"world_size": 2, "batch": 32},
    "steps": {"warmup": 1, "min": 100000, "max": 100000, "time_budget_s": 120, "rounds": 1})");
  // Start the run, wait for rank 1 to be training, then kill it.
  std::ofstream(dir_ / "kill.sh") << "OMP_NUM_THREADS=1 " << TB_TRAINBENCH_BIN << " run " << p("long.json") << " --out "
                                  << p("out") << " --format md --no-history --nproc-per-node 2"
                                  << " --dist-timeout 60 >> " << p("log.txt") << R"( 2>&1 &
launcher=$!
for i in $(seq 100); do
  sleep 0.2
  for c in $(pgrep -P $launcher); do
    if tr '\0' '\n' < /proc/$c/environ | grep -qx RANK=1; then rank1=$c; fi
  done
  [ -n "$rank1" ] && break
done
sleep 4
kill -9 $rank1
wait $launcher
)";
  const auto start = std::chrono::steady_clock::now();
  const int rc = tb::test::run_shell("bash " + p("kill.sh"));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(rc, 1) << log();
  EXPECT_LT(took, 50.0) << "the run did not end promptly after a rank died";
  EXPECT_NE(log().find("rank 1 ended with signal 9"), std::string::npos) << log();
  const json r = results();
  ASSERT_EQ(r["scenarios"].size(), 1u);
  EXPECT_EQ(r["scenarios"][0]["status"], "failed") << r["scenarios"][0].dump().substr(0, 400);
  EXPECT_FALSE(r["scenarios"][0]["message"].get<std::string>().empty());
}

}  // namespace
