// The console's view of a run: the plan line, rounds with the time left, one line per finished
// scenario with its status (coloured only when asked), warnings, the durations it prints, and
// what --verbose adds (and its clash with --quiet).
#include <trainbench/cli/console_progress.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <sstream>
#include <vector>

#include <trainbench/cli/progress_options.hpp>
#include <trainbench/support/error.hpp>

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

TEST(ConsoleProgress, ShardPlanSaysWhichShardOfHowMany) {
  std::ostringstream out;
  ConsoleProgress console(out, false);
  console.run_started({"quick", "id1", "cpu", "results/x", 3, 10, 2, true, false, "1/3"});
  EXPECT_NE(out.str().find("trainbench: matrix 'quick' (3 scenarios, shard 1/3 of 10, 2 rounds, interleaved) on cpu"),
            std::string::npos)
      << out.str();
}

TEST(ConsoleProgress, PlanRoundsAndScenarioLines) {
  std::ostringstream out;
  ConsoleProgress console(out, false);
  console.run_started({"quick", "id1", "cpu", "results/x", 2, 2, 3, true, false});
  console.round_finished(0, 3, {"mlp/fp32/w0/a1/b32"});
  console.round_finished(2, 3, {"mlp/fp32/w0/a1/b32"});
  console.round_finished(3, 3, {});
  console.scenario_finished(1, 2, measured("mlp/fp32/w0/a1/b32"));
  console.scenario_finished(2, 2, failed("mlp/amp_fp16/w0/a1/b32", "needs CUDA"));
  const std::string text = out.str();
  EXPECT_NE(text.find("trainbench: matrix 'quick' (2 scenarios, 3 rounds, interleaved) on cpu, results in results/x\n"),
            std::string::npos)
      << text;
  // Round 1 of 3 leaves two more: the time left is shown; after the last planned round it is not.
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(round 1/3 done, \d+ s, ~\d+ s left\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(round 3/3 done, \d+ s\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(round 4 \(extra\) done, \d+ s\n)"))) << text;
  EXPECT_TRUE(std::regex_search(
      text,
      std::regex(
          R"(\[1/2\] mlp/fp32/w0/a1/b32 \.\.\. ok  12\.10 ms/step \(no interval\)  2645\.5 samples/s  \(10 steps, 0 segments\)\n)")))
      << text;
  EXPECT_NE(text.find("[2/2] mlp/amp_fp16/w0/a1/b32 ... failed: needs CUDA\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\033'), std::string::npos) << "no colour was asked for";
  EXPECT_EQ(text.find("still going"), std::string::npos) << "verbose lines only when asked for";
  EXPECT_EQ(text.find("median "), std::string::npos) << "verbose lines only when asked for";
}

ScenarioResult segmented(const std::string& id) {
  ScenarioResult r = measured(id);
  r.step_time_s.ci_low = 0.0119;
  r.step_time_s.ci_high = 0.0123;
  r.step_time_s.ci_method = "segments";
  r.stop_reason = "target_ci";
  for (double median : {0.0120, 0.0121, 0.0123}) r.segments.push_back({.steps = 4, .median_s = median});
  return r;
}

TEST(ConsoleProgress, VerboseAddsStillGoingAndAScenarioDetailLine) {
  std::ostringstream out;
  ConsoleProgress console(out, false, tb::cli::Detail::verbose);
  console.run_started({"quick", "id1", "cpu", "results/x", 3, 3, 2, true, false});
  console.round_finished(0, 2, {"a", "b"});
  console.round_finished(1, 2, {"a", "b", "c", "d", "e"});
  console.round_finished(2, 2, {});
  console.scenario_finished(1, 3, segmented("a"));
  console.scenario_finished(2, 3, measured("b"));
  console.scenario_finished(3, 3, failed("c", "needs CUDA"));
  const std::string text = out.str();
  const std::string number = R"(\d+\.\d\d)";
  struct Case {
    const char* what;
    std::string pattern;
  };
  const Case cases[] = {
      {"round 1 lists both", R"(round 1/2 done, [^\n]*\n      still going \(2\): a b\n)"},
      {"a long list ends in a count", R"(round 2/2 done, \d+ s\n      still going \(5\): a b c \+2 more\n)"},
      {"an extra round with none left", R"(round 3 \(extra\) done, \d+ s\n      still going \(0\): none\n)"},
      {"interval, stop reason, segments",
       R"(\[1/3\] a \.\.\. ok [^\n]*\n      median )" + number + R"( ms/step, 95% interval \[)" + number + ", " +
           number + R"(\] ms \(±\d+\.\d%, segments\), stop: target_ci, 3 segments:( )" + number + R"(){3} ms\n)"},
      {"no interval, no segments", R"(\[2/3\] b \.\.\. ok [^\n]*\n      median )" + number +
                                       R"( ms/step, no 95% interval, stop: max_steps, 0 segments\n)"},
      {"a failure has nothing more", R"(\[3/3\] c \.\.\. failed: needs CUDA\n$)"},
  };
  for (const Case& c : cases) EXPECT_TRUE(std::regex_search(text, std::regex(c.pattern))) << c.what << "\n" << text;
}

TEST(ConsoleProgress, QuietAndVerboseAreOneChoice) {
  using tb::cli::Detail;
  const tb::cli::CommandSpec spec{.name = "run", .options = {tb::cli::kQuietOption, tb::cli::kVerboseOption}};
  struct Case {
    std::vector<std::string> args;
    std::optional<Detail> detail;
  };
  for (const Case& c : {Case{{}, Detail::normal}, Case{{"--quiet"}, std::nullopt}, Case{{"--verbose"}, Detail::verbose},
                        Case{{"-v"}, Detail::verbose}})
    EXPECT_EQ(tb::cli::progress_detail(tb::cli::parse_arguments(spec, c.args)), c.detail)
        << (c.args.empty() ? "(none)" : c.args[0]);
  using Args = std::vector<std::string>;
  for (const Args& both : {Args{"--quiet", "--verbose"}, Args{"-v", "--quiet"}}) {
    try {
      tb::cli::progress_detail(tb::cli::parse_arguments(spec, both));
      ADD_FAILURE() << "accepted " << both[0] << " " << both[1];
    } catch (const tb::InputError& e) {
      EXPECT_STREQ(e.what(), "command line: --verbose: --quiet and --verbose together: choose one");
    }
  }
  EXPECT_NE(tb::cli::format_usage(spec).find("  -v, --verbose  "), std::string::npos) << tb::cli::format_usage(spec);
}

TEST(ConsoleProgress, ResumeLineAndSequentialTimeLeft) {
  std::ostringstream out;
  ConsoleProgress console(out, false);
  console.run_started({"quick", "run7", "cpu", "results/run7", 1, 4, 1, false, true});
  console.scenario_finished(1, 3, measured("a"));
  console.scenario_finished(3, 3, measured("c"));
  const std::string text = out.str();
  EXPECT_NE(text.find("trainbench: resuming run run7: 1 of 4 scenarios to measure, results in results/run7\n"),
            std::string::npos)
      << text;
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
  EXPECT_DOUBLE_EQ(tb::cli::remaining_s(30, 1, 4), 90);  // a quarter took 30 s
  EXPECT_DOUBLE_EQ(tb::cli::remaining_s(30, 4, 4), 0);
  EXPECT_DOUBLE_EQ(tb::cli::remaining_s(30, 0, 4), 0);  // nothing to go by yet
}

}  // namespace
