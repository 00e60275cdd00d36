#include <trainbench/runner/crash_supervisor.hpp>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

extern char** environ;

namespace tb {

namespace {

volatile std::sig_atomic_t g_child = 0;

void forward_to_child(int signal) {
  if (g_child > 0) ::kill(static_cast<pid_t>(g_child), signal);
}

// The parent's signal dispositions while it waits, restored on destruction. The child is in a
// process group of its own, so a Ctrl-C at the terminal, a kill of the parent or of its whole
// group reaches the parent only, and the parent passes it on once: the child's handler takes a
// second signal as "stop now" (runner/interrupt.hpp), so it must never get one twice.
class WaitingSignals {
 public:
  explicit WaitingSignals(pid_t child) {
    g_child = child;
    struct sigaction forward {};
    forward.sa_handler = forward_to_child;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &forward, &int_);
    ::sigaction(SIGTERM, &forward, &term_);
    ::sigaction(SIGHUP, &forward, &hup_);
  }
  ~WaitingSignals() {
    ::sigaction(SIGINT, &int_, nullptr);
    ::sigaction(SIGTERM, &term_, nullptr);
    ::sigaction(SIGHUP, &hup_, nullptr);
    g_child = 0;
  }
  WaitingSignals(const WaitingSignals&) = delete;
  WaitingSignals& operator=(const WaitingSignals&) = delete;

 private:
  struct sigaction int_ {
  }, term_{}, hup_{};
};

// In a new child: its own process group (signals come from the parent only), and SIGTERM when
// the parent dies (a SIGKILLed parent leaves no run behind it, stopped cleanly).
void detach_child() {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
}

ChildExit wait_for(pid_t child) {
  const WaitingSignals signals(child);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waiting for the run's process: ") + std::strerror(errno));
  return ChildExit::from_wait_status(status);
}

}  // namespace

bool is_crash_signal(int signal) {
  switch (signal) {
    case SIGSEGV:
    case SIGABRT:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGSYS: return true;
    default: return false;
  }
}

SupervisedRun run_supervised(const std::function<int()>& body) {
  // Buffered output would be written twice, by both processes.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("cannot start the run's process: ") + std::strerror(errno));
  if (child == 0) {
    detach_child();
    return {std::nullopt, body()};
  }
  ::setpgid(child, child);  // also here: no signal may reach the group before the child made it
  return {wait_for(child), 0};
}

void end_like_child(int signal) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(signal, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(signal);
  ::_exit(128 + signal);  // a signal whose default is to go on (none of those a child ends by)
}

bool single_threaded() {
  std::error_code ec;
  int threads = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec); !ec && it != std::filesystem::end(it);
       it.increment(ec))
    ++threads;
  return !ec && threads == 1;
}

ChildExit spawn_supervised(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
  for (const auto& e : extra_env) env_text.push_back(e);
  std::vector<char*> env;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // fork + exec rather than posix_spawn: the child needs its own group and the parent-death
  // signal; between them it calls only async-signal-safe functions (this process may have
  // threads).
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("cannot start ") + argv[0] + ": " + std::strerror(errno));
  if (child == 0) {
    ::close(report[0]);
    detach_child();
    ::execve(args[0], args.data(), env.data());
    const int error = errno;  // exec failed: tell the parent why, then go
    [[maybe_unused]] const auto written = ::write(report[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(report[1]);
  ::setpgid(child, child);
  int error = 0;
  const auto got = ::read(report[0], &error, sizeof error);  // end of file: exec succeeded
  ::close(report[0]);
  if (got == static_cast<ssize_t>(sizeof error)) {
    ::waitpid(child, nullptr, 0);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(error));
  }
  return wait_for(child);
}

}  // namespace tb
