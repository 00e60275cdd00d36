#include <trainbench/runner/child_process.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace tb {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

ChildExit ChildExit::from_wait_status(int status) {
  ChildExit e;
  if (WIFEXITED(status)) {
    e.exited = true;
    e.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
  }
  return e;
}

std::string ChildExit::describe() const {
  if (exited) return "exit code " + std::to_string(code);
  const char* name = ::strsignal(signal);
  std::string text = "signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
  if (hung_after_s > 0) {
    std::ostringstream after;
    after << " after " << hung_after_s << " s without progress (a hang: the matrix's hang_timeout_s)";
    text += after.str();
  }
  return text;
}

std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const bool replaced = std::any_of(overrides.begin(), overrides.end(),
                                      [&](const std::string& o) { return name_of(o) == name_of(entry); });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: empty argv");
  program_ = argv[0];
  int in[2], out[2], status_pipe[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot start " + program_ + ": " + std::strerror(errno));
  int err_fd = -1;
  if (!options.stderr_path.empty()) {
    err_fd = ::open(options.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (err_fd < 0) {
      const int e = errno;
      for (int fd : {in[0], in[1], out[0], out[1], status_pipe[0], status_pipe[1]}) ::close(fd);
      throw std::runtime_error("cannot start " + program_ + ": cannot create " + options.stderr_path + ": " +
                               std::strerror(e));
    }
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Built before fork: the child may only make async-signal-safe calls until exec.
  std::vector<std::string> env_text = environment_with(options.environment);
  std::vector<char*> env;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("cannot start " + program_ + ": " + std::strerror(errno));
  if (pid_ == 0) {
    // Child: only async-signal-safe calls until exec. exec failing reports errno on status_pipe.
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);  // dup2 clears close-on-exec on the copy
    if (options.detach_from_terminal_signals) {
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    }
    ::execvpe(args[0], args.data(), env.data());
    const int err = errno;
    (void)!::write(status_pipe[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(status_pipe[1]);
  if (err_fd >= 0) ::close(err_fd);
  to_child_ = in[1];
  from_child_ = out[0];
  int exec_errno = 0;
  const ssize_t got = ::read(status_pipe[0], &exec_errno, sizeof exec_errno);  // EOF on exec
  ::close(status_pipe[0]);
  if (got == sizeof exec_errno) {
    wait();
    throw std::runtime_error("cannot start " + program_ + ": " + std::strerror(exec_errno));
  }
}

ChildProcess::~ChildProcess() {
  close_fd(to_child_);
  close_fd(from_child_);
  if (pid_ > 0 && !exit_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  }
}

bool ChildProcess::write_line(const std::string& line) {
  if (to_child_ < 0) return false;
  const std::string data = line + '\n';
  std::size_t done = 0;
  while (done < data.size()) {
    // MSG_NOSIGNAL does not exist for pipes: the caller ignores SIGPIPE (see `ab`), so a dead
    // child shows up here as EPIPE.
    const ssize_t n = ::write(to_child_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> ChildProcess::read_line(const std::function<bool()>& give_up) {
  for (;;) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (from_child_ < 0) return std::nullopt;
    if (give_up) {
      pollfd fd{from_child_, POLLIN, 0};
      const int ready = ::poll(&fd, 1, 100);
      if (ready < 0 && errno != EINTR) return std::nullopt;
      if (ready <= 0) {
        if (give_up()) return std::nullopt;
        continue;
      }
    }
    char chunk[4096];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close_fd(from_child_);
      if (buffer_.empty()) return std::nullopt;
      std::string rest;
      rest.swap(buffer_);
      return rest;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

ChildExit ChildProcess::wait() {
  if (exit_) return *exit_;
  close_fd(to_child_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) {
      exit_ = ChildExit{};
      return *exit_;
    }
  }
  close_fd(from_child_);
  exit_ = ChildExit::from_wait_status(status);
  return *exit_;
}

}  // namespace tb
