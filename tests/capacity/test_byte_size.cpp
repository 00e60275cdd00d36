// Byte sizes for --memory-budget and report formatting.
#include <gtest/gtest.h>

#include <trainbench/capacity/byte_size.hpp>
#include <trainbench/support/error.hpp>

namespace tb::capacity {
namespace {

TEST(ByteSize, ParsesBinaryAndDecimalUnits) {
  EXPECT_EQ(parse_byte_size("4GiB", "--memory-budget"), 4LL << 30);
  EXPECT_EQ(parse_byte_size("512MiB", "f"), 512LL << 20);
  EXPECT_EQ(parse_byte_size("1.5GB", "f"), 1500000000LL);
  EXPECT_EQ(parse_byte_size("1000000", "f"), 1000000LL);
  EXPECT_EQ(parse_byte_size("64k", "f"), 64000LL);
  EXPECT_EQ(parse_byte_size("2 TiB", "f"), 2LL << 40);
  EXPECT_EQ(parse_byte_size(" 10 B ", "f"), 10LL);
  EXPECT_EQ(parse_byte_size("3gib", "f"), 3LL << 30);
  EXPECT_EQ(parse_byte_size("0.5KiB", "f"), 512LL);
}

TEST(ByteSize, BadInputNamesTheField) {
  for (const char* bad : {"", "GiB", "4XB", "-1", "1.2.3", "1e30GiB", "."}) {
    try {
      parse_byte_size(bad, "--memory-budget");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--memory-budget") << bad;
      EXPECT_NE(std::string(e.what()).find("--memory-budget"), std::string::npos);
    }
  }
  EXPECT_THROW(parse_byte_size("99999999999TiB", "f"), InputError);
}

TEST(ByteSize, FormatsWithThreeSignificantDigits) {
  EXPECT_EQ(format_bytes(3), "3 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(4LL << 30), "4.00 GiB");
  EXPECT_EQ(format_bytes(150LL << 20), "150 MiB");
  EXPECT_EQ(format_bytes(10LL * (1 << 20) + (1 << 19)), "10.5 MiB");
  EXPECT_EQ(format_bytes(0), "0 B");
}

TEST(ByteSize, FormatsWithOneDecimalForReportColumns) {
  EXPECT_EQ(format_bytes(3, ByteDigits::one_decimal), "3 B");
  EXPECT_EQ(format_bytes(1536, ByteDigits::one_decimal), "1.5 KiB");
  EXPECT_EQ(format_bytes(640LL << 20, ByteDigits::one_decimal), "640.0 MiB");
  EXPECT_EQ(format_bytes(-(584LL << 20), ByteDigits::one_decimal), "-584.0 MiB");
  EXPECT_EQ(format_bytes(0, ByteDigits::one_decimal), "0 B");
}

TEST(ByteSize, FormatThenParseRoundTrips) { EXPECT_EQ(parse_byte_size(format_bytes(4LL << 30), "f"), 4LL << 30); }

}  // namespace
}  // namespace tb::capacity
