// run's command line: --resume/--force come out first, and a resume runs with the run's own
// recorded arguments (minus --out) followed by the ones given now.
#include "harness/core/run_args.hpp"

#include <gtest/gtest.h>

#include "harness/core/error.hpp"

namespace {

using Args = std::vector<std::string>;

const nlohmann::json kRecorded = {"trainbench", "run", "m.json", "--out", "results/x", "--set",
                                  "steps.max=20", "--format", "md", "--no-history"};

TEST(RunArgs, ResumeTakesTheRunsOwnArgumentsWithoutOut) {
  EXPECT_EQ(tb::resume_arguments(kRecorded, {}),
            (Args{"m.json", "--set", "steps.max=20", "--format", "md", "--no-history"}));
}

TEST(RunArgs, ArgumentsGivenNowComeLastAndWin) {
  const auto args = tb::resume_arguments(kRecorded, {"--set", "test_delay_ms=0", "--format", "none"});
  EXPECT_EQ(args, (Args{"m.json", "--set", "steps.max=20", "--format", "md", "--no-history", "--set",
                        "test_delay_ms=0", "--format", "none"}));
  const auto a = tb::parse_common(args, true);
  EXPECT_EQ(a.matrix, "m.json");
  EXPECT_EQ(a.formats, "none");
  EXPECT_EQ(a.sets, (Args{"steps.max=20", "test_delay_ms=0"}));
  EXPECT_TRUE(a.out_dir.empty());
}

TEST(RunArgs, AMatrixGivenNowReplacesTheRuns) {
  // An option's value is not a matrix: only a real positional argument replaces it.
  EXPECT_EQ(tb::resume_arguments(kRecorded, {"--set", "a=1"}).front(), "m.json");
  const auto args = tb::resume_arguments(kRecorded, {"moved/m.json"});
  EXPECT_EQ(tb::parse_common(args, true).matrix, "moved/m.json");
}

TEST(RunArgs, NoRecordedCommandLineLeavesTheGivenOnes) {
  EXPECT_EQ(tb::resume_arguments(nlohmann::json(), {"m.json"}), (Args{"m.json"}));
}

TEST(RunArgs, ResumeAndForceAreTakenOut) {
  Args args{"--resume", "results/x", "--force", "--set", "a=1"};
  const auto r = tb::take_resume_args(args);
  EXPECT_EQ(r.dir, "results/x");
  EXPECT_TRUE(r.force);
  EXPECT_EQ(args, (Args{"--set", "a=1"}));
  Args plain{"m.json"};
  EXPECT_TRUE(tb::take_resume_args(plain).dir.empty());
}

TEST(RunArgs, ForceWithoutResumeAndResumeWithoutDirAreRefused) {
  Args force{"m.json", "--force"};
  EXPECT_THROW(tb::take_resume_args(force), tb::InputError);
  Args bare{"--resume"};
  EXPECT_THROW(tb::take_resume_args(bare), tb::InputError);
}

}  // namespace
