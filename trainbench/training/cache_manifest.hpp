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

// Checking the sizes of the default image cache (2,048 files, 14 MB) took 13-18 ms on the
// 2-core CI machine, sizes and CRC-32s 62-70 ms (page cache warm): about 4 ms a MB. The cache
// is opened once a scenario, so the CRC-32s are read only up to this size (~0.3 s).
inline constexpr std::uint64_t kCacheChecksumLimitBytes = 64ull << 20;

// What is wrong with the cache at `dir`, "" when every file its manifest lists is there with its
// size and, when they add up to at most `checksum_limit_bytes`, its CRC-32. Names the first bad
// file: "MANIFEST: missing", "class_01/img_000004.jpg: size mismatch (4 bytes, expected 5120)",
// "class_01/img_000004.jpg: checksum mismatch".
std::string verify_cache(const std::string& dir, std::uint64_t checksum_limit_bytes = kCacheChecksumLimitBytes);

}  // namespace tb
