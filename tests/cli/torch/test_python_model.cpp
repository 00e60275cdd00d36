// README "Your model from Python" end to end: the three commands are read from the README (so the
// docs and this test cannot drift apart) and run as written from a scratch folder, with the
// venv's python for `python`, the built binary for scripts/trainbench, and a few --set overrides
// on the run so it takes seconds; the report exists and has its speedup line.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <vector>

#include "tests/helpers/cli_test.hpp"
#include "tests/helpers/python_torch.hpp"

namespace {

namespace fs = std::filesystem;

// The lines of the first ```sh block after the README's python-model marker.
std::vector<std::string> readme_commands() {
  const std::string readme = tb::test::slurp(std::string(TB_SOURCE_DIR) + "/README.md");
  const auto marker = readme.find("<!-- python-model-commands -->");
  if (marker == std::string::npos) return {};
  const auto start = readme.find("```sh\n", marker);
  const auto end = readme.find("```", start + 6);
  std::istringstream block(readme.substr(start + 6, end - start - 6));
  std::vector<std::string> commands;
  for (std::string line; std::getline(block, line);) {
    line = line.substr(0, line.find("  #"));  // trailing comments
    if (line.find_first_not_of(' ') != std::string::npos) commands.push_back(line);
  }
  return commands;
}

class PythonModel : public tb::test::CliTest {};

TEST_F(PythonModel, ReadmeCommandsGoFromAPythonModuleToASpeedupReport) {
  const std::string python = tb::test::python_with_torch();
  if (python.empty()) GTEST_SKIP() << "no python that imports torch beside LibTorch (" << TB_TORCH_LIB_DIR << ")";
  const auto commands = readme_commands();
  ASSERT_EQ(commands.size(), 3u) << "README.md: the block after <!-- python-model-commands -->";
  const std::string source = TB_SOURCE_DIR;
  const std::vector<std::pair<std::regex, std::string>> as_built = {
      {std::regex("^python "), python + " "},
      {std::regex("scripts/export_model\\.py"), source + "/scripts/export_model.py"},
      {std::regex("examples/"), source + "/examples/"},
      {std::regex("^scripts/trainbench (run .*)$"),
       "OMP_NUM_THREADS=1 " + std::string(TB_TRAINBENCH_BIN) +
           " $1 --no-history --set steps.warmup=1 --set steps.min=3 --set steps.max=6 --set steps.rounds=2"
           " --set steps.time_budget_s=1 --set dataset_options.samples=128"},
  };
  for (const auto& command : commands) {
    std::string line = command;
    for (const auto& [pattern, replacement] : as_built) line = std::regex_replace(line, pattern, replacement);
    ASSERT_EQ(tb::test::run_shell("cd " + dir_.string() + " && " + line + " >> log.txt 2>&1"), 0) << line;
  }
  const fs::path report = dir_ / "results" / "mynet" / "report.md";
  ASSERT_TRUE(fs::exists(report));
  const std::string text = tb::test::slurp(report);
  EXPECT_NE(text.find("torchscript@synthetic/amp_bf16"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("geomean speedup \\*\\*[0-9.]+x"))) << text;
  EXPECT_NE(log().find("exported"), std::string::npos);  // the export said which way it exported
}

}  // namespace
