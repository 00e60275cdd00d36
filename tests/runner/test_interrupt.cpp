// The interrupt flag: the first SIGINT/SIGTERM/SIGHUP only sets it (the process goes on), the exit code
// follows the shell's 128 + signal, and a second signal takes the default action at once. Each
// test runs in a forked child, so no test sees another's signal.
#include <trainbench/runner/interrupt.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace {

// Runs `body` in a child process and returns its wait status; `body` returns the exit code.
template <typename Body>
int in_child(Body body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(Interrupt, NotInterruptedBeforeAnySignal) {
  EXPECT_FALSE(tb::interrupted());
  EXPECT_EQ(tb::interrupt_signal(), 0);
  EXPECT_EQ(tb::interrupt_exit_code(), 0);
}

TEST(Interrupt, FirstSigintSetsTheFlagAndTheProcessGoesOn) {
  const int status = in_child([] {
    tb::install_interrupt_handlers();
    if (tb::interrupted()) return 10;
    raise(SIGINT);
    if (!tb::interrupted()) return 11;
    if (tb::interrupt_signal() != SIGINT) return 12;
    return tb::interrupt_exit_code();
  });
  ASSERT_TRUE(WIFEXITED(status)) << "the first SIGINT killed the process";
  EXPECT_EQ(WEXITSTATUS(status), 130);
}

TEST(Interrupt, SigtermGives143AndRestoresTheDefaultAction) {
  const int status = in_child([] {
    tb::install_interrupt_handlers();
    raise(SIGTERM);
    struct sigaction now {};
    sigaction(SIGINT, nullptr, &now);
    if (now.sa_handler != SIG_DFL) return 20;
    return tb::interrupt_exit_code();
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
}

// A closed terminal or a dropped SSH session sends SIGHUP: the run stops cleanly too.
TEST(Interrupt, SighupGives129AndRestoresTheDefaultAction) {
  const int status = in_child([] {
    tb::install_interrupt_handlers();
    raise(SIGHUP);
    if (tb::interrupt_signal() != SIGHUP) return 40;
    struct sigaction now {};
    sigaction(SIGHUP, nullptr, &now);
    if (now.sa_handler != SIG_DFL) return 41;
    return tb::interrupt_exit_code();
  });
  ASSERT_TRUE(WIFEXITED(status)) << "the first SIGHUP killed the process";
  EXPECT_EQ(WEXITSTATUS(status), 129);
}

TEST(Interrupt, SecondSignalEndsTheProcessAtOnce) {
  const int status = in_child([] {
    tb::install_interrupt_handlers();
    raise(SIGINT);
    if (!tb::interrupted()) return 30;
    raise(SIGTERM);  // a different signal is no way round it either
    return 31;       // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit code " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

TEST(Interrupt, TheFirstSignalIsTheOneRecorded) {
  // Another thread's signal may reach the handler before it has reset the actions: the first
  // signal still decides the exit code. The handlers are installed again to deliver that case.
  const int status = in_child([] {
    tb::install_interrupt_handlers();
    raise(SIGTERM);
    tb::install_interrupt_handlers();
    raise(SIGINT);
    return tb::interrupt_exit_code();
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
}

}  // namespace
