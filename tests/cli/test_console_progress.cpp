// The console's view of a run: the plan line, rounds with the time left, one line per finished
// scenario with its status (coloured only when asked), warnings, and the durations it prints.
#include <trainbench/cli/console_progress.hpp>

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace {

using tb::RunPlan;
using tb::ScenarioResult;
using tb::ScenarioStatus;
using tb::cli::ConsoleProgress;

ScenarioResult measured(const std::string& id) {
  ScenarioResult r;
  r.id = id;
  r.status = ScenarioStatus::ok;
  r.step_time_s.n = 10;
  r.step_time_s.median = 0.0121;
  r.samples_per_s = 2645.5;
  r.measured_steps = 10;
  r.stop_reason = "max_steps";
  return r;
}

ScenarioResult failed(const std::string& id, const std::string& why) {
  ScenarioResult r;
  r.id = id;
  r.status = ScenarioStatus::failed;
  r.message = why;
  return r;
}

TEST(ConsoleProgress, PlanRoundsAndScenarioLines) {
  std::ostringstream out;
  ConsoleProgress console(out, false);
  console.run_started({"quick", "id1", "cpu", "results/x", 2, 2, 3, true, false});
  console.round_finished(0, 3);
  console.round_finished(2, 3);
  console.round_finished(3, 3);
  console.scenario_finished(1, 2, measured("mlp/fp32/w0/a1/b32"));
  console.scenario_finished(2, 2, failed("mlp/amp_fp16/w0/a1/b32", "needs CUDA"));
  const std::string text = out.str();
  EXPECT_NE(text.find("trainbench: matrix 'quick' (2 scenarios, 3 rounds, interleaved) on cpu, results in results/x\n"),
            std::string::npos) << text;
  // Round 1 of 3 leaves two more: the time left is shown; after the last planned round it is not.
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(round 1/3 done, \d+ s, ~\d+ s left\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(round 3/3 done, \d+ s\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(round 4 \(extra\) done, \d+ s\n)"))) << text;
  EXPECT_TRUE(std::regex_search(
      text, std::regex(R"(\[1/2\] mlp/fp32/w0/a1/b32 \.\.\. ok  12\.10 ms/step \(no interval\)  2645\.5 samples/s  \(10 steps, 0 segments\)\n)")))
      << text;
  EXPECT_NE(text.find("[2/2] mlp/amp_fp16/w0/a1/b32 ... failed: needs CUDA\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\033'), std::string::npos) << "no colour was asked for";
}

TEST(ConsoleProgress, ResumeLineAndSequentialTimeLeft) {
  std::ostringstream out;
  ConsoleProgress console(out, false);
  console.run_started({"quick", "run7", "cpu", "results/run7", 1, 4, 1, false, true});
  console.scenario_finished(1, 3, measured("a"));
  console.scenario_finished(3, 3, measured("c"));
  const std::string text = out.str();
  EXPECT_NE(text.find("trainbench: resuming run run7: 1 of 4 scenarios to measure, results in results/run7\n"),
            std::string::npos) << text;
  // Not interleaved: every scenario but the last says how long the rest should take.
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\[1/3\] a \.\.\. ok .*  \[\d+ s, ~\d+ s left\]\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\[3/3\] c \.\.\. ok [^\[]*\(10 steps, 0 segments\)\n)"))) << text;
}

TEST(ConsoleProgress, ColourOnlyWhenAsked) {
  std::ostringstream plain_out, colour_out;
  ConsoleProgress plain(plain_out, false), colour(colour_out, true);
  for (ConsoleProgress* c : {&plain, &colour}) {
    c->scenario_finished(1, 1, failed("x", "boom"));
    c->warning("disk full");
  }
  EXPECT_EQ(plain_out.str(), "[1/1] x ... failed: boom\ntrainbench: warning: disk full\n");
  EXPECT_EQ(colour_out.str(),
            "[1/1] x ... \033[31mfailed\033[0m: boom\n\033[33mtrainbench: warning: \033[0mdisk full\n");
  // Not standard output: never coloured, whatever the terminal.
  std::ostringstream other;
  ConsoleProgress deduced(other);
  deduced.scenario_finished(1, 1, measured("y"));
  EXPECT_EQ(other.str().find('\033'), std::string::npos);
}

TEST(ConsoleProgress, DurationsAndTimeLeft) {
  EXPECT_EQ(tb::cli::format_duration(0), "0 s");
  EXPECT_EQ(tb::cli::format_duration(59.4), "59 s");
  EXPECT_EQ(tb::cli::format_duration(200), "3 min 20 s");
  EXPECT_EQ(tb::cli::format_duration(7500), "2 h 05 min");
  EXPECT_EQ(tb::cli::format_duration(-3), "0 s");
  EXPECT_DOUBLE_EQ(tb::cli::remaining_s(30, 1, 4), 90);   // a quarter took 30 s
  EXPECT_DOUBLE_EQ(tb::cli::remaining_s(30, 4, 4), 0);
  EXPECT_DOUBLE_EQ(tb::cli::remaining_s(30, 0, 4), 0);    // nothing to go by yet
}

}  // namespace
