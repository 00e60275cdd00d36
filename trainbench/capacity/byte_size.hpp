// Human byte sizes for options like --memory-budget 4GiB.
#pragma once
#include <cstdint>
#include <string>

namespace tb::capacity {

// "4GiB", "512MiB", "1.5GB", "64k", "1000000", "2 TiB" -> bytes. Binary suffixes (KiB, MiB,
// GiB, TiB) are powers of 1024; decimal ones (kB/KB/k, MB/M, GB/G, TB/T) powers of 1000; "B"
// or no suffix means bytes. Case-insensitive suffix. Throws tb::InputError(field_for_errors) on
// an empty, negative, malformed or overflowing value.
std::int64_t parse_byte_size(const std::string& text, const std::string& field_for_errors);

// How a size is written in binary units (B, KiB, ... PiB).
enum class ByteDigits {
  significant,  // three significant digits, for messages: "1.50 KiB", "10.5 MiB", "150 MiB"
  one_decimal,  // one decimal, for report columns that line up: "1.5 KiB", "150.0 MiB"
};

// The one byte-size formatter: 1536 -> "1.50 KiB", 3 -> "3 B", 4294967296 -> "4.00 GiB",
// -1536 -> "-1.50 KiB" (a fitted intercept can be negative).
std::string format_bytes(std::int64_t bytes, ByteDigits digits = ByteDigits::significant);

}  // namespace tb::capacity
