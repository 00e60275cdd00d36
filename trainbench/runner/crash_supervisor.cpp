#include <trainbench/runner/crash_supervisor.hpp>

#include <spawn.h>
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

// The parent's signal dispositions while it waits, restored on destruction.
class WaitingSignals {
 public:
  explicit WaitingSignals(pid_t child) {
    g_child = child;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    struct sigaction forward {};
    forward.sa_handler = forward_to_child;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &ignore, &int_);
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
  if (child == 0) return {std::nullopt, body()};
  return {wait_for(child), 0};
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
  pid_t child = -1;
  if (const int rc = ::posix_spawn(&child, args[0], nullptr, nullptr, args.data(), env.data()); rc != 0)
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  return wait_for(child);
}

}  // namespace tb
