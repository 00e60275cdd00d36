#include <trainbench/runner/run_folder_lock.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <trainbench/support/error.hpp>

namespace tb {

namespace {

// What the holder wrote: "pid 1234: trainbench run scenarios/quick.json".
std::string holder_of(int fd) {
  char buf[512] = {};
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  std::string text = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text.empty() ? "another process" : text;
}

}  // namespace

RunFolderLock::RunFolderLock(const std::filesystem::path& dir, const std::string& command) {
  const std::string path = (dir / ".trainbench.lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError(path, std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = err == EWOULDBLOCK ? holder_of(fd_) : std::string();
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) throw OutputError(path, std::strerror(err));
    throw InputError("command line", "--out",
                     dir.string() + " is in use by a running trainbench (" + holder +
                         "); give this run another --out, or wait for that one to finish");
  }
  const std::string record = "pid " + std::to_string(::getpid()) + ": " + command + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    // Only a hint for the refusal message: a failed write takes nothing from the lock.
    [[maybe_unused]] const ssize_t n = ::pwrite(fd_, record.data(), record.size(), 0);
  }
}

RunFolderLock::~RunFolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor releases the flock
}

}  // namespace tb
