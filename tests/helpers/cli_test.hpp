// The fixture of the end-to-end tests that drive the real trainbench binary: a scratch folder
// per test, every command's output appended to its log.txt (printed when the test fails: the
// output explains a wrong exit code), and the exit code as a shell reports it.
#pragma once
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tests/helpers/scratch_dir.hpp"

namespace tb::test {

// `cmd` through the shell: its exit code, or 128 + N when it was killed by signal N.
inline int run_shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  if (WIFSIGNALED(rc)) return 128 + WTERMSIG(rc);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = scratch_dir(std::string(info->test_suite_name()) + "." + info->name());
  }
  void TearDown() override {
    if (HasFailure()) std::cout << "---- trainbench output ----\n" << log() << "---- end ----\n";
  }

  // `trainbench ARGS`, output appended to log.txt. One intra-op thread: on a 2-core runner two
  // lock-step threads stall whenever anything else takes a core (an A/A pair then differed 3x),
  // one thread shares a core gracefully. No core files: crashes here are planted, and a LibTorch
  // core is hundreds of megabytes.
  // The history goes to the test's folder, never the user's own (results/history_location.hpp).
  int trainbench(const std::string& args) const {
    return run_shell("ulimit -c 0; OMP_NUM_THREADS=1 TRAINBENCH_HISTORY=" + p("history.sqlite") + " " +
                     std::string(TB_TRAINBENCH_BIN) + " " + args + " >> " + p("log.txt") + " 2>&1");
  }
  std::string log() const { return slurp(dir_ / "log.txt"); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }

  // `results` validates against schema/results.schema.json (skipped without python3-jsonschema).
  void expect_valid_schema(const std::filesystem::path& results) const {
    const int rc = run_shell(std::string("python3 ") + TB_SOURCE_DIR + "/scripts/validate_results.py " + TB_SOURCE_DIR +
                             "/schema/results.schema.json " + results.string() + " >> " + p("log.txt") + " 2>&1");
    if (rc == 2) return;  // python3-jsonschema not installed
    EXPECT_EQ(rc, 0) << results;
  }

  std::filesystem::path dir_;
};

}  // namespace tb::test
