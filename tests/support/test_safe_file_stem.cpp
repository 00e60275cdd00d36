#include <trainbench/support/safe_file_stem.hpp>

#include <gtest/gtest.h>

namespace {

TEST(SafeFileStem, ReplacesEverythingButLettersDigitsDashAndUnderscore) {
  EXPECT_EQ(tb::safe_file_stem("mlp/fp32/w0 a1:b64"), "mlp_fp32_w0_a1_b64");
  EXPECT_EQ(tb::safe_file_stem("ok-name_1"), "ok-name_1");
  EXPECT_EQ(tb::safe_file_stem("v1.2"), "v1_2");
  EXPECT_EQ(tb::safe_file_stem("caf\xc3\xa9"), "caf__");  // each byte of a UTF-8 letter
  EXPECT_EQ(tb::safe_file_stem(""), "");
}

}  // namespace
