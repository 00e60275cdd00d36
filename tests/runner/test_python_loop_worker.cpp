// PythonLoopWorker, the parent's side of a Python loop's step worker: against a scripted worker
// (tests/fixtures/python-loop/fake_step_worker.py) for every way a worker can misbehave, and
// against the real one (python/trainbench/worker.py) once, end to end, when its python has torch.
#include <trainbench/runner/python_loop_worker.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <trainbench/runner/interrupt.hpp>

#include <gtest/gtest.h>

#include "tests/helpers/scratch_dir.hpp"

namespace {

using nlohmann::json;
using namespace tb;

const std::string kFake = std::string(TB_SOURCE_DIR) + "/tests/fixtures/python-loop/fake_step_worker.py";

class PythonLoopWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tb::test::scratch_dir(std::string("PythonLoopWorker.") +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  std::string stderr_path() const { return (dir_ / "worker.stderr").string(); }
  PythonLoopWorker fake(const std::string& mode, double timeout_s = 30) const {
    return PythonLoopWorker(PythonRuntime::from_environment(), stderr_path(), timeout_s, {"python3", kFake, mode});
  }
  static PythonLoopSpec spec() { return {.file = "/nowhere/my_loop.py", .function = "build"}; }
  static PythonRunRequest request(int steps) {
    return {.warmup = 2, .warmup_budget_s = 1, .min_steps = steps, .max_steps = steps, .budget_s = 1};
  }
  std::filesystem::path dir_;
};

TEST_F(PythonLoopWorkerTest, BuildsRunsProfilesAndFinishes) {
  const std::string requests = (dir_ / "requests.jsonl").string();
  ::setenv("FAKE_REQUESTS", requests.c_str(), 1);
  auto worker = fake("ok");
  ::unsetenv("FAKE_REQUESTS");
  EXPECT_EQ(worker.python_version(), "3.0.fake");
  EXPECT_EQ(worker.torch_version(), "0.0.fake");
  EXPECT_GT(worker.pid(), 0);

  const PythonBuilt built = worker.build(spec(), json{{"batch", 64}});
  EXPECT_EQ(built.mode, "components");
  EXPECT_EQ(built.parameters, 1234);
  EXPECT_EQ(built.samples_per_step, 64);
  EXPECT_DOUBLE_EQ(built.build_s, 0.25);

  const PythonSegment s = worker.run(request(5));
  EXPECT_EQ(s.warmup_steps, 2);
  ASSERT_EQ(s.step_s.size(), 5u);
  ASSERT_EQ(s.loss.size(), 5u);
  EXPECT_DOUBLE_EQ(s.step_s[4], 0.014);
  ASSERT_EQ(s.unmeasured_loss.size(), 2u);
  EXPECT_TRUE(std::isnan(s.unmeasured_loss[1])) << "null is a non-finite loss";
  EXPECT_EQ(s.phase_s[static_cast<std::size_t>(Phase::forward)].size(), 5u);
  EXPECT_TRUE(s.phase_s[static_cast<std::size_t>(Phase::optimizer)].empty()) << "not measured: empty";
  EXPECT_EQ(s.first_step_s, 1.5);
  EXPECT_EQ(s.recompiles, 2);
  EXPECT_EQ(s.peak_bytes, 4096);

  EXPECT_EQ(worker.profile(3, (dir_ / "trace.json").string(), false), 3);
  worker.finish();

  // What crossed the pipe: the matrix's file and function, the settings, the run's limits.
  std::ifstream in(requests);
  std::vector<json> sent;
  for (std::string line; std::getline(in, line);) sent.push_back(json::parse(line));
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_EQ(sent[0]["build"]["file"], "/nowhere/my_loop.py");
  EXPECT_EQ(sent[0]["build"]["settings"]["batch"], 64);
  EXPECT_EQ(sent[1]["run"]["max_steps"], 5);
  EXPECT_EQ(sent[1]["run"]["warmup"], 2);
  EXPECT_EQ(sent[2]["profile"]["steps"], 3);
  EXPECT_EQ(sent[3], json({{"finish", true}}));
}

TEST_F(PythonLoopWorkerTest, TheUsersErrorsKeepTheirStatusAndField) {
  auto refused = fake("build_invalid");
  try {
    refused.build(spec(), json::object());
    FAIL() << "no error";
  } catch (const PythonLoopError& e) {
    EXPECT_EQ(e.status(), "invalid");
    EXPECT_EQ(e.field(), "python.function");
    EXPECT_STREQ(e.what(), "AttributeError: module has no function 'nope' (my_loop.py:3)");
  }
  auto oom = fake("oom_on_run");
  oom.build(spec(), json::object());
  try {
    oom.run(request(3));
    FAIL() << "no error";
  } catch (const PythonLoopError& e) { EXPECT_EQ(e.status(), "oom"); }
}

TEST_F(PythonLoopWorkerTest, AnotherProtocolVersionIsRefusedAtTheHello) {
  try {
    fake("old_version");
    FAIL() << "no error";
  } catch (const PythonWorkerCrashed& e) {
    EXPECT_NE(std::string(e.what()).find("speaks"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("version 1"), std::string::npos) << e.what();
  }
}

TEST_F(PythonLoopWorkerTest, AWorkerThatDiesMidRequestIsCrashedWithItsStderr) {
  auto worker = fake("crash_on_run");
  worker.build(spec(), json::object());
  try {
    worker.run(request(3));
    FAIL() << "no error";
  } catch (const PythonWorkerCrashed& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ended (exit code 7"), std::string::npos) << what;
    EXPECT_NE(what.find("segfault-like death"), std::string::npos) << "the stderr's tail is quoted: " << what;
  }
}

TEST_F(PythonLoopWorkerTest, AHungWorkerIsKilledAtTheTimeout) {
  auto worker = fake("hang_on_run", 1.0);
  worker.build(spec(), json::object());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(worker.run(request(3)), PythonWorkerCrashed);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

TEST_F(PythonLoopWorkerTest, GivingUpKillsTheWorkerAndThrowsInterrupted) {
  auto worker = fake("hang_on_run");
  worker.build(spec(), json::object());
  int polls = 0;
  EXPECT_THROW(worker.run(request(3), [&] { return ++polls > 3; }), Interrupted);
  EXPECT_THROW(worker.run(request(3)), PythonWorkerCrashed) << "the worker is gone after giving up";
}

TEST_F(PythonLoopWorkerTest, GarbageOnTheReplyChannelIsACrash) {
  auto worker = fake("not_json");
  worker.build(spec(), json::object());
  try {
    worker.run(request(3));
    FAIL() << "no error";
  } catch (const PythonWorkerCrashed& e) {
    EXPECT_NE(std::string(e.what()).find("not JSON"), std::string::npos) << e.what();
  }
}

TEST_F(PythonLoopWorkerTest, AMalformedSegmentIsTheWorkersFailure) {
  auto worker = fake("short_phase");
  worker.build(spec(), json::object());
  try {
    worker.run(request(4));
    FAIL() << "no error";
  } catch (const PythonLoopError& e) {
    EXPECT_EQ(e.status(), "failed");
    EXPECT_NE(std::string(e.what()).find("'forward' has 3 values for 4 steps"), std::string::npos) << e.what();
  }
}

TEST(PythonSegment, RefusesWhatCannotBeMeasurements) {
  EXPECT_THROW(parse_python_segment(json::array()), PythonLoopError);
  EXPECT_THROW(parse_python_segment(json{{"step_s", {0.1, 0.2}}, {"loss", {1.0}}}), PythonLoopError);
  EXPECT_THROW(parse_python_segment(json{{"step_s", {-0.1}}, {"loss", {1.0}}}), PythonLoopError);
  EXPECT_THROW(parse_python_segment(json{{"step_s", {0.1}}, {"loss", {1.0}}, {"phase_s", {{"thinking", {0.1}}}}}),
               PythonLoopError);
  EXPECT_THROW(parse_python_segment(json{{"step_s", "fast"}, {"loss", {1.0}}}), PythonLoopError);
  const PythonSegment ok = parse_python_segment(json{{"step_s", {0.1}}, {"loss", {nullptr}}});
  EXPECT_TRUE(std::isnan(ok.loss[0]));
  EXPECT_FALSE(ok.first_step_s.has_value()) << "an eager model has no compile figures";
}

// The real worker, when this build's python has torch: a tiny Components loop, two segments.
TEST(PythonLoopWorkerReal, MeasuresATinyComponentsLoop) {
  const PythonRuntime runtime = PythonRuntime::from_environment();
  const std::string probe = runtime.interpreter + " -c 'import torch' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) GTEST_SKIP() << runtime.interpreter << " cannot import torch";
  const auto dir = tb::test::scratch_dir("PythonLoopWorkerReal");
  PythonLoopWorker worker(runtime, (dir / "worker.stderr").string(), 120);
  EXPECT_FALSE(worker.torch_version().empty());
  const PythonLoopSpec spec{.file = std::string(TB_SOURCE_DIR) + "/python/tests/fixtures/components_loop.py"};
  const json settings = {{"device", "cpu"}, {"precision", "fp32"},   {"batch", 8}, {"accumulation", 1}, {"threads", 1},
                         {"seed", 1},       {"user", json::object()}};
  const PythonBuilt built = worker.build(spec, settings);
  EXPECT_EQ(built.mode, "components");
  EXPECT_GT(built.parameters, 0);
  const PythonSegment first = worker.run({.warmup = 1, .warmup_budget_s = 5, .min_steps = 3, .max_steps = 3});
  const PythonSegment second = worker.run({.warmup = 0, .warmup_budget_s = 0, .min_steps = 3, .max_steps = 3});
  ASSERT_EQ(first.step_s.size(), 3u);
  ASSERT_EQ(second.step_s.size(), 3u);
  for (const double t : second.step_s) EXPECT_GT(t, 0);
  for (const double loss : second.loss) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_TRUE(second.peak_bytes.has_value()) << "the CPU's peak: the process's peak RSS";
  worker.finish();
}

}  // namespace
