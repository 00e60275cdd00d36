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

// 1536 -> "1.50 KiB", 3 -> "3 B", 4294967296 -> "4.00 GiB" (binary units, 3 significant digits).
std::string format_bytes(std::int64_t bytes);

}  // namespace tb::capacity
