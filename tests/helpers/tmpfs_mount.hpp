// A 64 KiB tmpfs for fault-injection tests: a real full disk, or with MS_RDONLY a folder that
// even root cannot write. Mounting needs privileges; tests skip when it is refused.
#pragma once
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace tb::testing {

class TmpfsMount {
 public:
  static constexpr std::size_t kBytes = 64 * 1024;

  explicit TmpfsMount(const std::filesystem::path& dir, unsigned long flags = 0) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", flags, "size=64k") == 0) mounted_ = true;
    else error_ = std::strerror(errno);
  }
  ~TmpfsMount() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool mounted() const { return mounted_; }
  // Why the mount was refused, for GTEST_SKIP.
  std::string skip_reason() const { return "cannot mount a tmpfs here (" + error_ + "); needs root"; }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string error_;
};

}  // namespace tb::testing
