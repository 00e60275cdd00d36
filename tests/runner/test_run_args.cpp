// run --resume's command line: a resume runs with the run's own recorded arguments (minus --out,
// --resume and --force) followed by the ones given now.
#include <trainbench/runner/run_args.hpp>

#include <gtest/gtest.h>

namespace {

using Args = std::vector<std::string>;

const nlohmann::json kRecorded = {"trainbench", "run",          "m.json",   "--out", "results/x",
                                  "--set",      "steps.max=20", "--format", "md",    "--no-history"};

// The value-taking options of `run` (the CLI passes its option table's answer).
bool takes_value(const std::string& option) {
  return option == "--set" || option == "--out" || option == "--format" || option == "--memory-budget" ||
         option == "--history" || option == "--resume";
}

TEST(RunArgs, ResumeTakesTheRunsOwnArgumentsWithoutOut) {
  EXPECT_EQ(tb::resume_arguments(kRecorded, {}, takes_value),
            (Args{"m.json", "--set", "steps.max=20", "--format", "md", "--no-history"}));
}

TEST(RunArgs, ArgumentsGivenNowComeLast) {
  const auto args = tb::resume_arguments(kRecorded, {"--set", "test_delay_ms=0", "--format", "none"}, takes_value);
  EXPECT_EQ(args, (Args{"m.json", "--set", "steps.max=20", "--format", "md", "--no-history", "--set", "test_delay_ms=0",
                        "--format", "none"}));
}

TEST(RunArgs, AMatrixGivenNowReplacesTheRuns) {
  // An option's value is not a matrix: only a real positional argument replaces it.
  EXPECT_EQ(tb::resume_arguments(kRecorded, {"--set", "a=1"}, takes_value).front(), "m.json");
  EXPECT_EQ(tb::resume_arguments(kRecorded, {"moved/m.json"}, takes_value),
            (Args{"--set", "steps.max=20", "--format", "md", "--no-history", "moved/m.json"}));
}

TEST(RunArgs, OptionsWithEqualsAreOneArgument) {
  const nlohmann::json recorded = {"trainbench", "run", "--out=results/x", "--set=a=1", "m.json", "--force"};
  EXPECT_EQ(tb::resume_arguments(recorded, {}, takes_value), (Args{"--set=a=1", "m.json"}));
  EXPECT_EQ(tb::resume_arguments(recorded, {"n.json"}, takes_value), (Args{"--set=a=1", "n.json"}));
}

// A run started --quiet resumes --verbose: the recorded display option would otherwise make the
// pair a usage error.
TEST(RunArgs, TheDisplayIsChosenAnewOnResume) {
  const nlohmann::json recorded = {"trainbench", "run", "m.json", "--quiet", "--out", "x"};
  EXPECT_EQ(tb::resume_arguments(recorded, {"--verbose"}, takes_value), (Args{"m.json", "--verbose"}));
  EXPECT_EQ(tb::resume_arguments(recorded, {}, takes_value), (Args{"m.json"}));
  const nlohmann::json verbose = {"trainbench", "run", "m.json", "--verbose"};
  EXPECT_EQ(tb::resume_arguments(verbose, {"--quiet"}, takes_value), (Args{"m.json", "--quiet"}));
}

TEST(RunArgs, NoRecordedCommandLineLeavesTheGivenOnes) {
  EXPECT_EQ(tb::resume_arguments(nlohmann::json(), {"m.json"}, takes_value), (Args{"m.json"}));
}

}  // namespace
