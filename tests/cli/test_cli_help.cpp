// trainbench-needs-binary
// Every command of the real binary: --help prints its usage (exit 0), an unknown option is
// refused naming it (exit 2). Also the top-level help (built from the commands' tables) and
// --version. Nothing here measures: each call returns before a matrix is loaded.
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

// Exit code and stdout+stderr of `trainbench ARGS`.
std::pair<int, std::string> trainbench(const std::string& args) {
  const std::string cmd = std::string(TB_TRAINBENCH_BIN) + " " + args + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  std::string output;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

const std::vector<std::string> kCommands = {"run", "list",    "report",   "compare", "merge",
                                            "ab",  "history", "capacity", "models",  "worker"};

TEST(CliHelp, EveryCommandHasHelp) {
  for (const auto& command : kCommands) {
    const auto [rc, output] = trainbench(command + " --help");
    EXPECT_EQ(rc, 0) << command << "\n" << output;
    EXPECT_NE(output.find("usage: trainbench " + command), std::string::npos) << output;
    EXPECT_NE(output.find("-h, --help"), std::string::npos) << output;
  }
  EXPECT_EQ(trainbench("models -h").first, 0);
}

TEST(CliHelp, EveryCommandRejectsUnknownOptions) {
  for (const auto& command : kCommands) {
    const auto [rc, output] = trainbench(command + " --bogus=1");
    EXPECT_EQ(rc, 2) << command << "\n" << output;
    EXPECT_NE(output.find("trainbench " + command + ": command line: --bogus: unknown option"), std::string::npos)
        << output;
  }
}

TEST(CliHelp, TopLevelHelpListsEveryPublicCommand) {
  const auto [rc, output] = trainbench("--help");
  EXPECT_EQ(rc, 0) << output;
  for (const auto& command : kCommands)
    if (command != "worker") { EXPECT_NE(output.find("\n  " + command), std::string::npos) << command; }
  EXPECT_EQ(output.find("\n  worker"), std::string::npos) << "worker is internal";
  EXPECT_NE(output.find("exit codes:"), std::string::npos);
  EXPECT_EQ(trainbench("").first, 2);  // no command: the usage, as an error
  EXPECT_EQ(trainbench("frobnicate").first, 2);
}

TEST(CliHelp, VersionNamesTorchCudaAndCudnn) {
  const auto [rc, output] = trainbench("--version");
  EXPECT_EQ(rc, 0) << output;
  for (const char* line : {"trainbench ", "\ntorch ", "\nCUDA ", "\ncuDNN "})
    EXPECT_NE(output.find(line), std::string::npos) << line << "\n" << output;
}

TEST(CliHelp, MissingValuesAndStrayFlagsAreBadInput) {
  auto [rc, output] = trainbench("run --out");
  EXPECT_EQ(rc, 2) << output;
  EXPECT_NE(output.find("trainbench run: command line: --out: needs a value"), std::string::npos) << output;
  std::tie(rc, output) = trainbench("run --force");
  EXPECT_EQ(rc, 2) << output;
  EXPECT_NE(output.find("--force: only goes with --resume DIR or --out DIR"), std::string::npos) << output;
  std::tie(rc, output) = trainbench("models extra");
  EXPECT_EQ(rc, 2) << output;
  EXPECT_NE(output.find("extra: unexpected argument"), std::string::npos) << output;
}

// ab's sequential budget: refused, naming the option, before anything is measured.
TEST(CliHelp, AbBudgetOptionsThatAreNoBudgetAreBadInput) {
  const std::string ab = "ab m.json --old a --new b ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--fail-on-regression 5 --max-rounds 2", "--max-rounds: expected a whole number of rounds from 3"},
      {"--fail-on-regression 5 --max-rounds 4.5", "--max-rounds: expected a whole number of rounds from 3"},
      {"--fail-on-regression 5 --time-budget abc", "--time-budget: "},
      {"--fail-on-regression 5 --time-budget 0s", "--time-budget: "},
      {"--max-rounds 10", "--max-rounds: needs --fail-on-regression PCT"},
      {"--time-budget 10m", "--time-budget: needs --fail-on-regression PCT"},
      {"--fail-on-regression 5 --rounds-per-process 10", "--rounds-per-process: must be 1 with --fail-on-regression"},
      {"--fail-on-regression 5 --rounds-per-process 0", "--rounds-per-process: must be 1 with --fail-on-regression"},
  };
  for (const auto& [args, message] : cases) {
    const auto [rc, output] = trainbench(ab + args);
    EXPECT_EQ(rc, 2) << args << "\n" << output;
    EXPECT_NE(output.find("trainbench ab: command line: " + message), std::string::npos) << args << "\n" << output;
  }
}

// A bisection is gated throughout, so its rounds must be independent too.
TEST(CliHelp, BisectRefusesRoundsThatShareAWorkerPair) {
  const auto [rc, output] = trainbench("bisect a b --matrix m.json --rounds-per-process 4");
  EXPECT_EQ(rc, 2) << output;
  EXPECT_NE(output.find("trainbench bisect: command line: --rounds-per-process: must be 1 in a bisection"),
            std::string::npos)
      << output;
}

// run and capacity print progress: both offer --verbose (-v) and refuse it beside --quiet.
TEST(CliHelp, QuietAndVerboseAreOneChoice) {
  for (const std::string command : {"run", "capacity"}) {
    auto [rc, output] = trainbench(command + " --help");
    EXPECT_EQ(rc, 0) << output;
    EXPECT_NE(output.find("  -v, --verbose "), std::string::npos) << command << "\n" << output;
    std::tie(rc, output) = trainbench(command + " m.json --quiet -v");
    EXPECT_EQ(rc, 2) << command << "\n" << output;
    EXPECT_NE(output.find("trainbench " + command + ": command line: --verbose: --quiet and --verbose together"),
              std::string::npos)
        << output;
  }
}

}  // namespace
