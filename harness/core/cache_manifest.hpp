// The manifest of an on-disk cache (a generated dataset): each file's name, size and CRC-32,
// written when the cache is complete and checked when it is opened. A marker file alone cannot
// tell a damaged cache (a file truncated or overwritten with garbage) from a good one, and a
// trusted damaged cache fails every later run the same way; with the manifest it is rebuilt.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb {

inline constexpr const char* kCacheManifestName = "MANIFEST";

struct CacheFile {
  std::string name;  // relative to the cache folder
  std::uint64_t size = 0;
  std::uint32_t crc32 = 0;
};

// Size and CRC-32 of DIR/NAME; nullopt when it cannot be read.
std::optional<CacheFile> describe_cache_file(const std::string& dir, const std::string& name);

// Writes DIR/MANIFEST listing `names` (relative to `dir`) with their sizes and CRC-32s, durably.
// OutputError when a listed file cannot be read or the manifest cannot be written.
void write_cache_manifest(const std::string& dir, const std::vector<std::string>& names);

// Reading every byte to check the CRC-32s costs about as much as reading the cache once
// (measured in tests/core/test_cache_manifest.cpp); above this size only the sizes are checked.
inline constexpr std::uint64_t kCacheChecksumLimitBytes = 256ull << 20;

// What is wrong with the cache at `dir`, "" when every file its manifest lists is there with its
// size and, when they add up to at most `checksum_limit_bytes`, its CRC-32. Names the first bad
// file: "MANIFEST: missing", "class_01/img_000004.jpg: size mismatch (4 bytes, expected 5120)",
// "class_01/img_000004.jpg: checksum mismatch".
std::string verify_cache(const std::string& dir, std::uint64_t checksum_limit_bytes = kCacheChecksumLimitBytes);

}  // namespace tb
