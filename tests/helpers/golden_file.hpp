// Golden files: expected outputs kept under tests/golden/. A test compares what it produced with
// one; TB_UPDATE_GOLDEN=1 rewrites the file instead, for review in the diff before committing.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace tb::test {

inline bool updating_goldens() {
  const char* update = std::getenv("TB_UPDATE_GOLDEN");
  return update != nullptr && std::string(update) == "1";
}

// Compares `actual` with tests/golden/<name>, e.g. "reporters/console.txt".
inline void expect_golden(const std::string& name, const std::string& actual) {
  const auto path = std::filesystem::path(TB_SOURCE_DIR) / "tests" / "golden" / name;
  if (updating_goldens()) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "golden " << path << " rewritten";
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing; run with TB_UPDATE_GOLDEN=1 to create it";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(expected.str(), actual) << "output differs from " << path
                                    << " (TB_UPDATE_GOLDEN=1 rewrites it after review)";
}

}  // namespace tb::test
