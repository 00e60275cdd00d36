#include <trainbench/results/durable_file.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <system_error>

#include <trainbench/support/error.hpp>

namespace tb {

namespace {

namespace fs = std::filesystem;

// strerror in lower case, so it reads as the end of our own sentence.
std::string describe(int error) {
  std::string s = std::generic_category().message(error);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

[[noreturn]] void fail(const fs::path& artefact, const std::string& step, int error) {
  throw OutputError(artefact.string(), step + ": " + describe(error));
}

fs::path folder_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

void create_folder(const fs::path& artefact, const fs::path& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) fail(artefact, "cannot create folder " + folder.string(), ec.value());
}

// A temporary file beside the target, removed again unless renamed over it.
class TempFile {
 public:
  TempFile(const fs::path& target, const fs::path& artefact) : artefact_(artefact) {
    // O_EXCL: a name another process (or call) picked is never reused; draw again instead.
    for (int attempt = 0; attempt < 8 && fd_ < 0; ++attempt) {
      path_ = temporary_path_for(target);
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    const int error = errno;  // before anything else can change it
    if (fd_ < 0) fail(artefact_, "cannot create a temporary file in " + folder_of(target).string(), error);
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      const int error = n < 0 ? errno : ENOSPC;
      if (n <= 0) fail(artefact_, "write failed", error);
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  // Flushes to the disk and closes; a full disk may only show here (delayed allocation, NFS).
  void close() {
    if (::fsync(fd_) != 0) {
      const int error = errno;
      fail(artefact_, "flush to disk failed", error);
    }
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      const int error = errno;
      fail(artefact_, "close failed", error);
    }
  }
  void rename_over(const fs::path& target) {
    if (::rename(path_.c_str(), target.c_str()) != 0) {
      const int error = errno;
      fail(artefact_, "cannot replace the file", error);
    }
    path_.clear();
  }

 private:
  fs::path artefact_;
  fs::path path_;
  int fd_ = -1;
};

// Makes a rename itself durable; best effort (some filesystems cannot fsync a folder).
void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

fs::path temporary_path_for(const fs::path& target) {
  thread_local std::mt19937_64 rng([] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device() ^
           static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }());
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%012llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
  fs::path tmp = target;
  tmp += suffix;
  return tmp;
}

void write_file_durably(const fs::path& path, std::string_view contents) {
  const fs::path folder = folder_of(path);
  create_folder(path, folder);
  TempFile tmp(path, path);
  tmp.write(contents);
  tmp.close();
  tmp.rename_over(path);
  sync_folder(folder);
}

void ensure_writable_dir(const fs::path& dir) {
  create_folder(dir, dir);
  TempFile probe(dir / ".write-probe", dir);
  probe.write("trainbench\n");
  probe.close();
}  // the probe is removed here

}  // namespace tb
