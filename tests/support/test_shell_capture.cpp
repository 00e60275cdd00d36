// The one shell-capture helper: exit codes as the shell gives them, output with its trailing
// newlines cut, and words that survive quoting.
#include <trainbench/support/shell_capture.hpp>

#include <gtest/gtest.h>

namespace {

TEST(ShellCapture, ExitCodeAndOutput) {
  const auto ok = tb::capture_shell("printf 'a b\\n\\n'");
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.out, "a b");
  const auto failed = tb::capture_shell("echo partial; exit 3");
  EXPECT_EQ(failed.code, 3);
  EXPECT_EQ(failed.out, "partial");
  EXPECT_EQ(tb::capture_shell("kill -9 $$").code, 128 + 9);
}

TEST(ShellCapture, QuotedWordsReachTheCommandAsGiven) {
  for (const std::string word : {"plain", "two words", "it's", "$HOME `x` \"q\" \\", ""})
    EXPECT_EQ(tb::capture_shell("printf '%s' " + tb::shell_quoted(word)).out, word) << word;
}

}  // namespace
