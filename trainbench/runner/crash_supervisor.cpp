#include <trainbench/runner/crash_supervisor.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <trainbench/runner/liveness.hpp>

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

// The pipe a supervised child signals its progress on: the read end here, the write end (never
// blocking: a full pipe already says enough) for the child. `inherit`: the write end survives an
// exec (spawn_supervised), else it is closed there (a forked run's own children are not it).
struct LivenessPipe {
  int read = -1, write = -1;
  explicit LivenessPipe(bool inherit) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error(std::string("cannot start the run's process: pipe: ") + std::strerror(errno));
    read = fds[0];
    write = fds[1];
    if (inherit) ::fcntl(write, F_SETFD, 0);
  }
};

// Waits for `child`, draining its signs of progress from `beats` (closed here). With
// `hang_timeout_s` > 0, a child silent that long is killed with its process group.
ChildExit wait_for(pid_t child, int beats, double hang_timeout_s) {
  using Clock = std::chrono::steady_clock;
  const WaitingSignals signals(child);
  const auto timeout = std::chrono::duration<double>(hang_timeout_s);
  auto last_sign = Clock::now();
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) {
      if (beats >= 0) ::close(beats);
      return ChildExit::from_wait_status(status);
    }
    if (done < 0 && errno != EINTR) {
      if (beats >= 0) ::close(beats);
      throw std::runtime_error(std::string("waiting for the run's process: ") + std::strerror(errno));
    }
    pollfd p{beats, POLLIN, 0};
    const int ready = ::poll(&p, beats >= 0 ? 1 : 0, 100);
    if (ready > 0 && (p.revents & POLLIN) != 0) {
      char drained[256];
      while (::read(beats, drained, sizeof drained) > 0) {}
      last_sign = Clock::now();
    } else if (ready > 0) {  // hung up: every writer is gone, only the exit is left to see
      ::close(beats);
      beats = -1;
    }
    if (hang_timeout_s > 0 && Clock::now() - last_sign > timeout) {
      ::kill(-child, SIGKILL);
      ::kill(child, SIGKILL);
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
      if (beats >= 0) ::close(beats);
      ChildExit exit = ChildExit::from_wait_status(status);
      exit.hung_after_s = hang_timeout_s;
      return exit;
    }
  }
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

SupervisedRun run_supervised(const std::function<int()>& body, double hang_timeout_s) {
  // Buffered output would be written twice, by both processes.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const LivenessPipe liveness(/*inherit=*/false);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("cannot start the run's process: ") + std::strerror(errno));
  if (child == 0) {
    detach_child();
    ::close(liveness.read);
    set_liveness_fd(liveness.write);
    return {std::nullopt, body()};
  }
  ::close(liveness.write);
  ::setpgid(child, child);  // also here: no signal may reach the group before the child made it
  return {wait_for(child, liveness.read, hang_timeout_s), 0};
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

ChildExit spawn_supervised(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                           double hang_timeout_s) {
  const LivenessPipe liveness(/*inherit=*/true);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> overrides = extra_env;
  overrides.push_back(std::string(kLivenessFdVariable) + "=" + std::to_string(liveness.write));
  std::vector<std::string> env_text = environment_with(overrides);
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
    ::close(liveness.read);
    detach_child();
    ::execve(args[0], args.data(), env.data());
    const int error = errno;  // exec failed: tell the parent why, then go
    [[maybe_unused]] const auto written = ::write(report[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(report[1]);
  ::close(liveness.write);
  ::setpgid(child, child);
  int error = 0;
  const auto got = ::read(report[0], &error, sizeof error);  // end of file: exec succeeded
  ::close(report[0]);
  if (got == static_cast<ssize_t>(sizeof error)) {
    ::waitpid(child, nullptr, 0);
    ::close(liveness.read);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(error));
  }
  return wait_for(child, liveness.read, hang_timeout_s);
}

}  // namespace tb
