#include <trainbench/runner/liveness.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

namespace tb {

namespace {

std::atomic<int> g_fd{-1};

}  // namespace

void set_liveness_fd(int fd) { g_fd.store(fd); }

void set_liveness_fd_from_environment() {
  const char* text = std::getenv(kLivenessFdVariable);
  if (text == nullptr || *text == '\0') return;
  char* end = nullptr;
  errno = 0;
  const long fd = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || fd < 0 || fd > 1 << 20) return;
  if (::fcntl(static_cast<int>(fd), F_GETFD) < 0) return;  // not open here: no supervisor to tell
  // The run's own children (a Python loop's worker, git) are not the run: they inherit neither.
  ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  ::unsetenv(kLivenessFdVariable);
  set_liveness_fd(static_cast<int>(fd));
}

void signal_progress() {
  const int fd = g_fd.load(std::memory_order_relaxed);
  if (fd < 0) return;
  const char beat = '.';
  [[maybe_unused]] const auto written = ::write(fd, &beat, 1);  // EAGAIN: the pipe is full of beats already
}

}  // namespace tb
