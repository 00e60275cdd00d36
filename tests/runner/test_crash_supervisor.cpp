// The crash supervisor: a child's exit code or crash signal comes back to the parent, a child
// started afresh gets the extra environment, and which signals count as crashes.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <unistd.h>

#include <trainbench/runner/crash_supervisor.hpp>
#include <trainbench/runner/liveness.hpp>

namespace tb {
namespace {

// In the child, run_supervised returns the body's code: leave at once, past gtest's exit code.
int leave_if_child(const SupervisedRun& r) {
  if (!r.child_exit) std::_Exit(r.body_code);
  return 0;
}

TEST(CrashSupervisor, TheChildsExitCodeComesBack) {
  const SupervisedRun r = run_supervised([] { return 7; });
  leave_if_child(r);
  ASSERT_TRUE(r.child_exit);
  EXPECT_TRUE(r.child_exit->exited);
  EXPECT_EQ(r.child_exit->code, 7);
}

TEST(CrashSupervisor, ACrashInTheChildIsItsSignalNotTheParents) {
  const SupervisedRun r = run_supervised([] {
    std::signal(SIGABRT, SIG_DFL);
    std::abort();
    return 0;
  });
  leave_if_child(r);
  ASSERT_TRUE(r.child_exit);
  EXPECT_FALSE(r.child_exit->exited);
  EXPECT_EQ(r.child_exit->signal, SIGABRT);
  EXPECT_TRUE(is_crash_signal(r.child_exit->signal));
  EXPECT_NE(r.child_exit->describe().find("signal 6"), std::string::npos) << r.child_exit->describe();
}

TEST(CrashSupervisor, StopsFromOutsideAreNotCrashes) {
  for (int s : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) EXPECT_TRUE(is_crash_signal(s)) << s;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGKILL, SIGPIPE}) EXPECT_FALSE(is_crash_signal(s)) << s;
  // A child killed from outside comes back as its signal.
  const SupervisedRun r = run_supervised([] {
    ::raise(SIGTERM);
    return 0;
  });
  leave_if_child(r);
  ASSERT_TRUE(r.child_exit);
  EXPECT_EQ(r.child_exit->signal, SIGTERM);
}

TEST(CrashSupervisor, AChildStartedAfreshGetsTheExtraEnvironment) {
  const ChildExit e =
      spawn_supervised({"/bin/sh", "-c", "exit $TB_SUPERVISOR_TEST_CODE"}, {"TB_SUPERVISOR_TEST_CODE=3"});
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.code, 3);
  EXPECT_THROW(spawn_supervised({"/nonexistent/program"}, {}), std::runtime_error);
}

// A child that goes on saying it is alive is left alone however long it takes; one that falls
// silent past the hang timeout is killed (SIGKILL) and comes back as hung.
TEST(CrashSupervisor, AChildSilentPastTheHangTimeoutIsKilled) {
  const SupervisedRun alive = run_supervised(
      [] {
        for (int i = 0; i < 12; ++i) {
          signal_progress();
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return 4;
      },
      /*hang_timeout_s=*/0.5);
  leave_if_child(alive);
  ASSERT_TRUE(alive.child_exit);
  EXPECT_TRUE(alive.child_exit->exited) << alive.child_exit->describe();
  EXPECT_EQ(alive.child_exit->code, 4);

  const SupervisedRun hung = run_supervised(
      [] {
        signal_progress();
        for (;;) ::pause();
        return 0;
      },
      /*hang_timeout_s=*/0.5);
  leave_if_child(hung);
  ASSERT_TRUE(hung.child_exit);
  EXPECT_EQ(hung.child_exit->signal, SIGKILL);
  EXPECT_EQ(hung.child_exit->hung_after_s, 0.5);
  EXPECT_NE(hung.child_exit->describe().find("after 0.5 s without progress"), std::string::npos)
      << hung.child_exit->describe();
}

// A child started afresh finds the pipe in its environment; one that never reads it is hung.
TEST(CrashSupervisor, AChildStartedAfreshIsWatchedToo) {
  const ChildExit told = spawn_supervised({"/bin/sh", "-c", "test -n \"$TRAINBENCH_LIVENESS_FD\""}, {}, 5);
  EXPECT_TRUE(told.exited);
  EXPECT_EQ(told.code, 0);
  const ChildExit silent = spawn_supervised({"/bin/sleep", "30"}, {}, 0.5);
  EXPECT_EQ(silent.signal, SIGKILL);
  EXPECT_GT(silent.hung_after_s, 0);
}

TEST(CrashSupervisor, ThreadsAreCounted) {
  const bool before = single_threaded();
  bool during = true;
  std::thread t([&] { during = single_threaded(); });
  t.join();
  EXPECT_FALSE(during);  // two threads at least while it ran
  EXPECT_EQ(single_threaded(), before);
}

}  // namespace
}  // namespace tb
