#include <trainbench/runner/run_folder_lock.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>

#include <gtest/gtest.h>

#include <trainbench/support/error.hpp>
#include "tests/helpers/scratch_dir.hpp"

namespace {

using namespace tb;

TEST(RunFolderLock, ASecondRunIntoTheFolderIsRefusedNamingTheFirst) {
  const auto dir = test::scratch_dir("run_folder_lock");
  std::optional<RunFolderLock> first;
  first.emplace(dir, "trainbench run first.json");
  try {
    RunFolderLock second(dir, "trainbench run second.json");
    FAIL() << "a second lock on one folder was granted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--out"), std::string::npos) << what;
    EXPECT_NE(what.find("pid " + std::to_string(::getpid()) + ": trainbench run first.json"), std::string::npos)
        << what;
  }
  first.reset();  // the first run ends: the folder is free again
  EXPECT_NO_THROW(RunFolderLock(dir, "trainbench run third.json"));
}

TEST(RunFolderLock, AKilledRunLeavesNoStaleLock) {
  const auto dir = test::scratch_dir("run_folder_lock_killed");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RunFolderLock held(dir, "trainbench run child.json");
    (void)::write(ready[1], "x", 1);
    ::pause();  // until SIGKILL
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_THROW(RunFolderLock(dir, "trainbench run parent.json"), InputError);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_NO_THROW(RunFolderLock(dir, "trainbench run parent.json"));
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(RunFolderLock, AnUnusableFolderIsAnOutputError) {
  const auto dir = test::scratch_dir("run_folder_lock_missing");
  EXPECT_THROW(RunFolderLock(dir / "no" / "such" / "folder", "trainbench run x.json"), OutputError);
}

}  // namespace
