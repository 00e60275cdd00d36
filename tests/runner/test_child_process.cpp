// ChildProcess: the line channel the A/B session drives its two workers through, and `run
// --isolate` one worker per scenario (its stderr captured to a file, its own process group).
#include <trainbench/runner/child_process.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <trainbench/support/file_tail.hpp>

#include <gtest/gtest.h>

namespace {

using tb::ChildProcess;

TEST(ChildProcess, EchoesLinesAndExitsAtEndOfInput) {
  ChildProcess cat({"cat"});
  ASSERT_TRUE(cat.write_line(R"({"segment": 3, "round": 1})"));
  EXPECT_EQ(cat.read_line(), R"({"segment": 3, "round": 1})");
  ASSERT_TRUE(cat.write_line("second"));
  EXPECT_EQ(cat.read_line(), "second");
  const auto how = cat.wait();  // closes its stdin: cat sees end of file and exits 0
  EXPECT_TRUE(how.exited);
  EXPECT_EQ(how.code, 0);
  EXPECT_EQ(how.describe(), "exit code 0");
  EXPECT_FALSE(cat.read_line().has_value());
}

// The child's environment is this process's with the options' entries set on top; this
// process's own is left as it was, however many children were started.
TEST(ChildProcess, EnvironmentIsTheChildsOnly) {
  ::setenv("TB_CHILD_ENV_TEST", "parent", 1);
  for (int i = 0; i < 2; ++i) {
    ChildProcess sh({"/bin/sh", "-c", "echo \"$TB_CHILD_ENV_TEST $TB_CHILD_ENV_NEW\"; echo \"$HOME\""},
                    {.environment = {"TB_CHILD_ENV_TEST=child", "TB_CHILD_ENV_NEW=added"}});
    EXPECT_EQ(sh.read_line(), "child added");
    EXPECT_EQ(sh.read_line(), std::string(std::getenv("HOME")));  // the rest is inherited
    EXPECT_TRUE(sh.wait().exited);
  }
  EXPECT_STREQ(std::getenv("TB_CHILD_ENV_TEST"), "parent");
  EXPECT_EQ(std::getenv("TB_CHILD_ENV_NEW"), nullptr);
  const auto env = tb::environment_with({"TB_CHILD_ENV_TEST=x"});
  EXPECT_EQ(
      std::count_if(env.begin(), env.end(), [](const std::string& e) { return e.rfind("TB_CHILD_ENV_TEST=", 0) == 0; }),
      1);
  ::unsetenv("TB_CHILD_ENV_TEST");
}

TEST(ChildProcess, ProgramThatCannotStartIsNamed) {
  try {
    ChildProcess missing({"/nonexistent/trainbench"});
    FAIL() << "started a program that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/trainbench"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST(ChildProcess, DeathBySignalIsReportedAndWritesFailQuietly) {
  ::signal(SIGPIPE, SIG_IGN);  // as `trainbench ab` does
  ChildProcess child({"sh", "-c", "read line; kill -SEGV $$"});
  ASSERT_TRUE(child.write_line("go"));
  EXPECT_FALSE(child.read_line().has_value());  // it died without answering
  // Writing to it now fails instead of killing this process.
  bool wrote = true;
  for (int i = 0; i < 100 && wrote; ++i) wrote = child.write_line(std::string(4096, 'x'));
  EXPECT_FALSE(wrote);
  const auto how = child.wait();
  EXPECT_FALSE(how.exited);
  EXPECT_EQ(how.signal, SIGSEGV);
  EXPECT_NE(how.describe().find("signal 11"), std::string::npos) << how.describe();
}

TEST(ChildProcess, DestructorLeavesNoOrphan) {
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  {
    ChildProcess sleeper({"sleep", "100"});
    pid = sleeper.pid();
    ASSERT_GT(pid, 0);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_NE(::kill(pid, 0), 0) << "the child outlived its ChildProcess";
}

TEST(ChildProcess, StderrGoesToTheFileAndOutlivesACrash) {
  ::signal(SIGPIPE, SIG_IGN);
  const auto dir = std::filesystem::path(TB_BINARY_DIR) / "test-runs" / "child_stderr";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "worker.stderr").string();
  tb::ChildOptions options;
  options.stderr_path = path;
  ChildProcess child({"sh", "-c", "echo ready; echo 'last words' >&2; read line; kill -ABRT $$"}, options);
  EXPECT_EQ(child.read_line(), "ready");  // stdout is still the line channel
  ASSERT_TRUE(child.write_line("go"));
  EXPECT_FALSE(child.read_line().has_value());
  const auto how = child.wait();
  EXPECT_EQ(how.signal, SIGABRT) << how.describe();
  EXPECT_EQ(tb::read_file_tail(path), "last words");
}

TEST(ChildProcess, UncreatableStderrFileIsNamed) {
  tb::ChildOptions options;
  options.stderr_path = "/nonexistent/dir/worker.stderr";
  try {
    ChildProcess child({"true"}, options);
    FAIL() << "started with a stderr file that cannot exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/worker.stderr"), std::string::npos) << e.what();
  }
}

TEST(ChildProcess, DetachedChildHasItsOwnProcessGroup) {
  tb::ChildOptions options;
  options.detach_from_terminal_signals = true;
  // Field 5 of /proc/PID/stat is the process group.
  ChildProcess child({"sh", "-c", "read -r a b c d pgrp rest < /proc/$$/stat; echo $pgrp"}, options);
  const auto line = child.read_line();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, std::to_string(child.pid()));
  EXPECT_NE(*line, std::to_string(::getpgrp()));
  EXPECT_TRUE(child.wait().exited);
}

}  // namespace
