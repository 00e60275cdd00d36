// Ctrl-C end to end with the real binary: a run stopped by SIGINT exits 130 with valid results
// (what finished ok, the rest interrupted) and says how to resume; `run --resume` refuses a
// changed matrix or other hardware (exit 2, results untouched), and otherwise measures only what
// did not finish and merges it under the same run id. SIGTERM gives 143 and keeps every whole
// segment measured before it; a second signal ends the run at once.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <trainbench/results/results.hpp>
#include "tests/helpers/cli_test.hpp"

namespace {

namespace fs = std::filesystem;
using tb::test::slurp;
using Clock = std::chrono::steady_clock;

// 8 small scenarios, slowed by a planted 25 ms per micro-batch so the run lasts ~5 s: long
// enough to be interrupted in the middle. The delay is outside the matrix digest, so a resume
// may drop it (--set test_delay_ms=0) and still be the same matrix.
std::string matrix(bool interleave, int hidden = 32) {
  return R"({"name": "interrupt", "model": "mlp", "device": "cpu",
    "dataset_options": {"samples": 256, "features": 32}, "model_options": {"hidden": )" +
         std::to_string(hidden) + R"(},
    "steps": {"warmup": 1, "min": 8, "max": 12, "target_rel_ci": 0.5, "time_budget_s": 1,
              "rounds": 4, "interleave": )" +
         (interleave ? "true" : "false") + R"(},
    "axes": {"batch": [8, 16, 32, 64], "accumulation": [1, 2]},
    "test_delay_ms": 25})";
}

class InterruptResume : public tb::test::CliTest {
 protected:
  // Starts trainbench in the background (one intra-op thread, as in test_cli_gate), output
  // appended to log.txt.
  pid_t start(const std::vector<std::string>& args) {
    // Everything the child needs is built before fork: between fork and exec only
    // async-signal-safe calls are allowed (this process may have threads).
    std::vector<char*> argv{const_cast<char*>(TB_TRAINBENCH_BIN)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> env_strings{"OMP_NUM_THREADS=1"};
    for (char** e = environ; *e; ++e)
      if (std::string(*e).rfind("OMP_NUM_THREADS=", 0) != 0) env_strings.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    const std::string log_path = p("log.txt");
    const pid_t pid = fork();
    if (pid == 0) {
      const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      execve(TB_TRAINBENCH_BIN, argv.data(), envp.data());
      _exit(127);
    }
    return pid;
  }
  // Runs trainbench to its end; its exit code.
  int run(const std::vector<std::string>& args) {
    int status = 0;
    waitpid(start(args), &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // Waits until `path` exists (the run saved its first round or scenario).
  static bool wait_for(const fs::path& path, double timeout_s) {
    const auto until = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (Clock::now() < until) {
      if (fs::exists(path)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  // Sends `sig` once results.json exists, plus `delay`; the wait status and seconds to exit.
  std::pair<int, double> interrupt(pid_t pid, const fs::path& out, int sig, int second_sig = 0,
                                   std::chrono::milliseconds delay = std::chrono::milliseconds(300)) {
    EXPECT_TRUE(wait_for(out / "results.json", 120)) << "the run saved nothing";
    std::this_thread::sleep_for(delay);
    const auto sent = Clock::now();
    kill(pid, sig);
    if (second_sig) {
      // Standard signals do not queue: two sent before the run's handler took the first merge
      // into one, which is a single Ctrl-C. A person's second Ctrl-C comes hundreds of
      // milliseconds later; 50 ms leave a loaded machine time to deliver the first (2 ms did not
      // on a CI machine running two tests at once), and are far less than a clean stop takes.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      kill(pid, second_sig);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const double s = std::chrono::duration<double>(Clock::now() - sent).count();
    std::cout << "exit " << s << " s after the signal\n";
    return {status, s};
  }
};

TEST_F(InterruptResume, SigintSavesWhatFinishedAndResumeCompletesTheRun) {
  std::ofstream(p("m.json")) << matrix(/*interleave=*/false);
  const fs::path out = dir_ / "run";
  const pid_t pid =
      start({"run", p("m.json"), "--out", out.string(), "--format", "md,csv", "--history", p("history.sqlite")});
  const auto [status, seconds] = interrupt(pid, out, SIGINT);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_LT(seconds, 10.0);
  EXPECT_NE(log().find("trainbench: interrupted; finish with: trainbench run --resume " + out.string()),
            std::string::npos);
  EXPECT_TRUE(fs::exists(out / "report.md"));

  const auto stopped = tb::load_results(out.string());
  expect_valid_schema(out / "results.json");
  ASSERT_EQ(stopped.scenarios.size(), 8u);  // not-started scenarios are listed too
  std::map<std::string, std::vector<double>> finished;
  int interrupted = 0;
  for (const auto& s : stopped.scenarios) {
    if (s.status == tb::ScenarioStatus::ok) finished[s.id] = s.step_times_s;
    else {
      EXPECT_EQ(s.status, tb::ScenarioStatus::interrupted) << s.id << ": " << s.message;
      EXPECT_EQ(s.stop_reason, "interrupted");
      ++interrupted;
    }
  }
  EXPECT_GE(finished.size(), 1u);
  EXPECT_GE(interrupted, 1);

  // A changed matrix is refused, named, and leaves the results as they were.
  const std::string before = slurp(out / "results.json");
  std::ofstream(p("changed.json")) << matrix(false, /*hidden=*/48);
  EXPECT_EQ(run({"run", "--resume", out.string(), p("changed.json")}), 2);
  EXPECT_NE(log().find("matrix.digest"), std::string::npos);
  EXPECT_EQ(slurp(out / "results.json"), before);

  // Other hardware (as recorded) is refused too.
  fs::create_directories(dir_ / "moved");
  auto moved = nlohmann::json::parse(before);
  moved["environment"]["cpu"]["model"] = "Imaginary CPU 9000";
  std::ofstream(dir_ / "moved" / "results.json") << moved.dump(2);
  EXPECT_EQ(run({"run", "--resume", p("moved")}), 2);
  EXPECT_NE(log().find("cpu.model"), std::string::npos);

  // The resume measures the rest (faster: the planted delay is not part of the matrix).
  ASSERT_EQ(run({"run", "--resume", out.string(), "--set", "test_delay_ms=0"}), 0);
  const auto done = tb::load_results(out.string());
  expect_valid_schema(out / "results.json");
  EXPECT_EQ(done.run_id, stopped.run_id);
  ASSERT_EQ(done.scenarios.size(), 8u);
  for (std::size_t i = 0; i < done.scenarios.size(); ++i) {
    const auto& s = done.scenarios[i];
    EXPECT_EQ(s.id, stopped.scenarios[i].id) << "matrix order kept";
    ASSERT_EQ(s.status, tb::ScenarioStatus::ok) << s.id << ": " << s.message;
    if (finished.count(s.id)) {
      EXPECT_EQ(s.step_times_s, finished[s.id]) << s.id << " was measured again";
      EXPECT_EQ(s.provenance.measured_in_resume, 0) << s.id;
    } else {
      EXPECT_EQ(s.provenance.measured_in_resume, 1) << s.id;
    }
  }
  ASSERT_TRUE(done.provenance.resume);
  const auto& resume = *done.provenance.resume;
  EXPECT_EQ(resume.count, 1);
  EXPECT_EQ(resume.rerun.size(), static_cast<std::size_t>(interrupted));
  EXPECT_FALSE(resume.forced);
  // Nothing left: a second resume has nothing to do.
  EXPECT_EQ(run({"run", "--resume", out.string()}), 0);
  EXPECT_NE(log().find("nothing to resume"), std::string::npos);
}

TEST_F(InterruptResume, SigtermKeepsEveryWholeSegmentAndDropsThePartOne) {
  std::ofstream(p("m.json")) << matrix(/*interleave=*/true);
  const fs::path out = dir_ / "run";
  const pid_t pid = start({"run", p("m.json"), "--out", out.string(), "--format", "none", "--no-history"});
  const auto [status, seconds] = interrupt(pid, out, SIGTERM, 0, std::chrono::milliseconds(100));
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_LT(seconds, 10.0);
  const auto stopped = tb::load_results(out.string());
  expect_valid_schema(out / "results.json");
  ASSERT_EQ(stopped.scenarios.size(), 8u);
  for (const auto& s : stopped.scenarios) {
    // Interleaved: nobody finishes before the last round, and round 1 was saved before the signal.
    EXPECT_EQ(s.status, tb::ScenarioStatus::interrupted) << s.id;
    EXPECT_GE(s.segments.size(), 1u) << s.id;
    int steps = 0;
    for (const auto& seg : s.segments) steps += seg.steps;
    EXPECT_EQ(static_cast<int>(s.step_times_s.size()), steps) << s.id << ": a partial segment was kept";
  }
  // --force resumes despite the (recorded) other hardware, and says so in the results.
  auto moved = nlohmann::json::parse(slurp(out / "results.json"));
  moved["environment"]["cpu"]["model"] = "Imaginary CPU 9000";
  std::ofstream(out / "results.json") << moved.dump(2);
  ASSERT_EQ(run({"run", "--resume", out.string(), "--force", "--set", "test_delay_ms=0"}), 0);
  const auto forced = tb::load_results(out.string());
  ASSERT_TRUE(forced.provenance.resume);
  EXPECT_TRUE(forced.provenance.resume->forced);
  EXPECT_NE(nlohmann::json(forced.provenance.resume->forced_over).dump().find("Imaginary CPU 9000"), std::string::npos);
  for (const auto& s : forced.scenarios) EXPECT_EQ(s.status, tb::ScenarioStatus::ok) << s.id;
}

// --isolate: the workers do not get the terminal's Ctrl-C; `run` kills the one measuring, and
// every unfinished scenario is "interrupted" with what its worker reported (never "crashed"). The
// resume runs isolated again (the recorded command line) and measures only those.
TEST_F(InterruptResume, IsolatedRunStopsAtOnceAndResumesIsolated) {
  std::ofstream(p("m.json")) << matrix(/*interleave=*/true);
  const fs::path out = dir_ / "run";
  const pid_t pid = start({"run", p("m.json"), "--out", out.string(), "--format", "none", "--no-history", "--isolate"});
  const auto [status, seconds] = interrupt(pid, out, SIGINT, 0, std::chrono::milliseconds(100));
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_LT(seconds, 5.0);
  const auto stopped = tb::load_results(out.string());
  expect_valid_schema(out / "results.json");
  ASSERT_EQ(stopped.scenarios.size(), 8u);
  for (const auto& s : stopped.scenarios) {
    EXPECT_EQ(s.status, tb::ScenarioStatus::interrupted) << s.id << ": " << s.message;
    EXPECT_GE(s.segments.size(), 1u) << s.id << ": round 1 was saved before the signal";
    int steps = 0;
    for (const auto& seg : s.segments) steps += seg.steps;
    EXPECT_EQ(static_cast<int>(s.step_times_s.size()), steps) << s.id << ": a partial segment was kept";
  }
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_EQ(e.path().filename().string().rfind(".worker-", 0), std::string::npos) << e.path();

  ASSERT_EQ(run({"run", "--resume", out.string(), "--set", "test_delay_ms=0"}), 0);
  const auto done = tb::load_results(out.string());
  EXPECT_TRUE(done.provenance.isolated);
  ASSERT_EQ(done.scenarios.size(), 8u);
  for (const auto& s : done.scenarios) {
    EXPECT_EQ(s.status, tb::ScenarioStatus::ok) << s.id << ": " << s.message;
    EXPECT_EQ(s.provenance.measured_in_resume, 1) << s.id;
  }
}

TEST_F(InterruptResume, SecondSignalEndsTheRunAtOnce) {
  std::ofstream(p("m.json")) << matrix(/*interleave=*/true);
  const fs::path out = dir_ / "run";
  const pid_t pid = start({"run", p("m.json"), "--out", out.string(), "--format", "none", "--no-history"});
  const auto [status, seconds] = interrupt(pid, out, SIGINT, SIGINT, std::chrono::milliseconds(100));
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited " << WEXITSTATUS(status) << " instead";
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_LT(seconds, 2.0);
  EXPECT_NO_THROW(tb::load_results(out.string())) << "the last saved round must still be valid";
}

}  // namespace
