// A fresh scratch directory for torch tests. Not std::filesystem::remove_all: libtorch.so
// exports its own copy of libstdc++'s filesystem code, and in a process that loads it that copy
// crashes on a non-empty directory (a null call inside), so the tree is removed with nftw.
#pragma once
#include <ftw.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace tb::test {

inline void remove_tree(const std::filesystem::path& dir) {
  nftw(
      dir.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return std::remove(path); }, 16,
      FTW_DEPTH | FTW_PHYS);
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::path(TB_BINARY_DIR) / "test-runs" / name;
  remove_tree(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tb::test
