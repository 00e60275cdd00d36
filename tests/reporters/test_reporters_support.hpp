// Shared helpers of the reporter tests: the fixture run, rendering, scratch folders and running a
// command with its output captured.
#pragma once
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/results.hpp>
#include "tests/helpers/golden_file.hpp"

namespace tb::test {

inline std::string fixture_path() { return std::string(TB_SOURCE_DIR) + "/tests/fixtures/results_fixture.json"; }

inline RunResult fixture_run() { return load_results(fixture_path()); }

// One reporter's output for a run, as a string.
inline std::string render(Reporter& reporter, const RunResult& run) {
  std::ostringstream os;
  ReportContext ctx;
  ctx.out = &os;
  reporter.render(run, ctx);
  return os.str();
}

inline std::string render(const std::string& format, const RunResult& run) {
  auto reporter = make_reporter(format);
  return render(*reporter, run);
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh, empty directory under the build tree for one test.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::path(TB_BINARY_DIR) / "test_scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command (stderr folded into stdout) and returns its exit code and output.
inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Whether an executable is on PATH.
inline bool have_program(const std::string& name) {
  return run_command("command -v " + name + " >/dev/null").exit_code == 0;
}

}  // namespace tb::test
