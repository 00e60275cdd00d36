// WorkerClient, the one client of the worker protocol, and PairedWorkerSet (`ab`'s executor)
// on the one schedule, both against a worker written in Python
// (tests/fixtures/worker-protocol/fake_worker.py): what a worker in another language has to do.
#include <trainbench/runner/worker_client.hpp>

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <trainbench/runner/paired_workers.hpp>
#include <trainbench/runner/schedule.hpp>

#include <gtest/gtest.h>

#include "tests/helpers/scratch_dir.hpp"

namespace {

using nlohmann::json;
using namespace tb;

class FakeWorkers : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = tb::test::scratch_dir(std::string("WorkerClient.") + info->name());
    program_ = fake_program("fake-trainbench", "");
  }
  // An executable like a trainbench build: `PROGRAM worker CONFIG --out DIR ...`. With `config`,
  // it reads that file and never the matrix it is given (a side that differs from the other).
  std::string fake_program(const std::string& name, const std::string& config) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << "#!/bin/sh\nexec python3 " << TB_SOURCE_DIR
                        << "/tests/fixtures/worker-protocol/fake_worker.py "
                        << (config.empty() ? "" : "worker " + config + " ") << "\"$@\"\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }
  std::string config(const std::string& name, const json& c) const {
    const std::string path = (dir_ / (name + ".json")).string();
    std::ofstream(path) << c.dump();
    return path;
  }
  // The requests one worker process received, in order.
  static std::vector<json> requests(const std::string& part) {
    std::vector<json> out;
    std::ifstream in(part + "/requests.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }
  PairedWorkersOptions pair_options(const std::string& matrix, int rounds_per_process) const {
    PairedWorkersOptions o;
    o.matrix = matrix;
    o.programs = {program_, program_};
    o.session = "s";
    o.out_dir = (dir_ / "ab").string();
    o.rounds_per_process = rounds_per_process;
    return o;
  }
  std::filesystem::path dir_;
  std::string program_;
};

TEST_F(FakeWorkers, TheClientReadsTheHelloAndTypedReplies) {
  WorkerClient worker(
      {program_, "worker", config("c", {{"scenarios", 2}, {"rounds", 4}}), "--out", (dir_ / "w").string()});
  const WorkerHello& hello = worker.await_hello();
  EXPECT_EQ(hello.scenarios.size(), 2u);
  EXPECT_EQ(hello.rounds, 4);
  const auto reply = worker.segment({1, 0, false});
  ASSERT_TRUE(reply.has_value());
  EXPECT_TRUE(reply->active);
  EXPECT_TRUE(reply->converged);
  EXPECT_TRUE(worker.save().has_value());
  EXPECT_FALSE(worker.finish_one(0).has_value());  // a refusal is not the reply asked for
  const auto finished = worker.finish();
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(finished->results, (dir_ / "w" / "results.json").string());
  EXPECT_EQ(worker.wait().describe(), "exit code 0");
}

TEST_F(FakeWorkers, AWorkerOfAnotherVersionIsRefusedWithBothVersions) {
  WorkerClient worker({program_, "worker", config("c", {{"version", 2}})});
  try {
    worker.await_hello();
    FAIL() << "a version 2 worker was accepted";
  } catch (const WorkerStartError& e) {
    EXPECT_EQ(e.kind(), WorkerStartError::Kind::incompatible);
    EXPECT_NE(std::string(e.what()).find("speaks worker protocol version 2, this trainbench speaks version 1"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(FakeWorkers, ARefusalAndASilentEndAreToldApart) {
  WorkerClient refusing({program_, "worker", config("r", {{"refuse", "no such model"}})});
  try {
    refusing.await_hello();
    FAIL();
  } catch (const WorkerStartError& e) {
    EXPECT_EQ(e.kind(), WorkerStartError::Kind::refused);
    EXPECT_STREQ(e.what(), "no such model");
  }
  WorkerClient silent({program_, "worker", config("s", {{"exit_before_hello", 3}})});
  try {
    silent.await_hello();
    FAIL();
  } catch (const WorkerStartError& e) {
    EXPECT_EQ(e.kind(), WorkerStartError::Kind::silent);
    EXPECT_EQ(e.exit().code, 3);
    EXPECT_STREQ(e.what(), "ended with exit code 3 during start-up");
  }
  EXPECT_THROW(WorkerClient({(dir_ / "missing").string(), "worker"}), WorkerStartError);
}

TEST_F(FakeWorkers, APairMeasuresEveryScenarioOnBothSidesEveryRoundWithAFreshPairEachRound) {
  PairedWorkerSet pair(pair_options(config("m", {{"scenarios", 3}, {"rounds", 4}, {"max_rounds", 9}}), 1));
  const StoppingRule rule = pair.stopping_rule();
  EXPECT_EQ(rule.rounds, 4);
  EXPECT_EQ(rule.max_rounds, 4);  // fresh pairs: no extra rounds
  int saves = 0;
  ScheduleHooks hooks;
  hooks.checkpoint = [&] {
    pair.save();
    ++saves;
  };
  Schedule(rule, pair.plan().seed).run(pair, hooks);
  ASSERT_EQ(pair.parts(0).size(), 4u);
  ASSERT_EQ(pair.parts(1).size(), 4u);
  EXPECT_EQ(saves, 4);
  for (int round = 0; round < 4; ++round) {
    // Each process of each side: the three scenarios of its round in the same order, a save, a finish.
    const auto old_requests = requests(pair.parts(0)[round]);
    const auto new_requests = requests(pair.parts(1)[round]);
    ASSERT_EQ(old_requests.size(), 5u) << round;
    EXPECT_EQ(old_requests, new_requests) << round;
    std::set<std::size_t> scenarios;
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(old_requests[k].at("round"), round);
      scenarios.insert(old_requests[k].at("segment").get<std::size_t>());
    }
    EXPECT_EQ(scenarios.size(), 3u);
    EXPECT_EQ(old_requests[3], json({{"save", true}}));
    EXPECT_EQ(old_requests[4], json({{"finish", true}}));
  }
}

TEST_F(FakeWorkers, OnePairForTheSessionGoesOnWhileEitherSideIsUnconverged) {
  // Scenario 1 converges after 5 segments; with one pair it gets extra rounds up to max_rounds.
  PairedWorkerSet pair(
      pair_options(config("m", {{"scenarios", 2}, {"rounds", 2}, {"max_rounds", 9}, {"converged_after", {1, 5}}}), 0));
  Schedule(pair.stopping_rule(), pair.plan().seed).run(pair);
  ASSERT_EQ(pair.parts(0).size(), 1u);
  int segments[2] = {0, 0};
  for (const auto& r : requests(pair.parts(0)[0]))
    if (r.contains("segment")) ++segments[r.at("segment").get<int>()];
  EXPECT_EQ(segments[0], 2);
  EXPECT_EQ(segments[1], 5);
}

TEST_F(FakeWorkers, ANewSideCrashStopsTheSessionAndBlamesNew) {
  auto options = pair_options(config("ok", {{"scenarios", 2}, {"rounds", 3}}), 0);
  // NEW's config: the same matrix, but its process exits at its third segment request.
  const std::string wrapper =
      fake_program("crashing-trainbench", config("crash", {{"scenarios", 2}, {"rounds", 3}, {"crash_at_segment", 3}}));
  options.programs[1] = wrapper;
  PairedWorkerSet pair(options);
  try {
    Schedule(pair.stopping_rule(), pair.plan().seed).run(pair);
    FAIL() << "a crash of NEW went unnoticed";
  } catch (const PairedSessionError& e) {
    EXPECT_TRUE(e.new_side_at_fault());
    const std::string what = e.what();
    EXPECT_NE(what.find("NEW worker (" + wrapper + ") ended with exit code 9 during round 2"), std::string::npos)
        << what;
    EXPECT_NE(what.find("what it measured so far is in"), std::string::npos) << what;
  }
  // OLD was finished so that its results so far are written.
  const auto old_requests = requests(pair.parts(0)[0]);
  EXPECT_EQ(old_requests.back(), json({{"finish", true}}));
}

// Pairing needs the same scenarios on both sides; settings that leave them alone (another
// digest: say NEW's python.file or model_options) are the A/B's subject and pass.
TEST_F(FakeWorkers, SidesWithDifferentScenariosAreRefusedOtherSettingsPass) {
  auto options = pair_options(config("a", {{"scenarios", 2}}), 1);
  options.programs[1] = fake_program("other-settings", config("b", {{"scenarios", 2}, {"digest", "eeeeeeeeeeeeeeee"}}));
  EXPECT_NO_THROW(PairedWorkerSet{options});

  options.programs[1] = fake_program("other-trainbench", config("c", {{"scenarios", 3}}));
  try {
    PairedWorkerSet pair(options);
    FAIL() << "sides that disagree were paired";
  } catch (const PairedSessionError& e) {
    EXPECT_FALSE(e.new_side_at_fault());
    EXPECT_NE(std::string(e.what()).find("into different scenarios"), std::string::npos) << e.what();
  }
}

}  // namespace
