// The crash supervisor: a child's exit code or crash signal comes back to the parent, a child
// started afresh gets the extra environment, and which signals count as crashes.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <thread>

#include <trainbench/runner/crash_supervisor.hpp>

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
