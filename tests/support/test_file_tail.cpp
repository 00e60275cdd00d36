// read_file_tail: how a crashed worker's stderr is quoted (run --isolate). Whole when short, the
// last 20 lines or 2 KB when long, never a torn first line, nothing for a missing file.
#include <trainbench/support/file_tail.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using tb::read_file_tail;

fs::path write(const std::string& name, const std::string& text) {
  const fs::path dir = fs::path(TB_BINARY_DIR) / "test-runs" / "file_tail";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

TEST(FileTail, MissingOrEmptyFileIsEmpty) {
  EXPECT_EQ(read_file_tail("/nonexistent/trainbench.stderr"), "");
  EXPECT_EQ(read_file_tail(write("empty", "").string()), "");
  EXPECT_EQ(read_file_tail(write("blank", "\n \n\t\n").string()), "");
}

TEST(FileTail, ShortFileIsWholeWithoutTrailingNewline) {
  const auto p = write("short", "first\nSegmentation fault\n\n");
  EXPECT_EQ(read_file_tail(p.string()), "first\nSegmentation fault");
}

TEST(FileTail, KeepsTheLastLines) {
  std::string text;
  for (int i = 1; i <= 30; ++i) text += "line " + std::to_string(i) + "\n";
  const auto p = write("lines", text);
  std::string want = "...\n";
  for (int i = 11; i <= 30; ++i) want += "line " + std::to_string(i) + (i < 30 ? "\n" : "");
  EXPECT_EQ(read_file_tail(p.string()), want);
  EXPECT_EQ(read_file_tail(p.string(), 2), "...\nline 29\nline 30");
}

TEST(FileTail, ByteLimitDropsTheTornLine) {
  // Three 1000-byte lines: the last 2048 bytes hold all of lines 2 and 3 and part of line 1.
  const std::string a(999, 'a'), b(999, 'b'), c(999, 'c');
  const auto p = write("bytes", a + "\n" + b + "\n" + c + "\n");
  EXPECT_EQ(read_file_tail(p.string()), "...\n" + b + "\n" + c);
  // Exactly at a line boundary nothing is torn, so nothing more is dropped.
  EXPECT_EQ(read_file_tail(p.string(), 20, 2000), "...\n" + b + "\n" + c);
}

TEST(FileTail, OneHugeLineIsCutToTheLimit) {
  const auto p = write("huge", std::string(100'000, 'x') + "END\n");
  const std::string tail = read_file_tail(p.string());
  EXPECT_EQ(tail.size(), 4u + 2048u - 1u);  // "...\n" and the last 2048 bytes less the newline
  EXPECT_EQ(tail.substr(0, 4), "...\n");
  EXPECT_EQ(tail.substr(tail.size() - 3), "END");
}

}  // namespace
