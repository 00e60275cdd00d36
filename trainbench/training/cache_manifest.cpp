#include <trainbench/training/cache_manifest.hpp>

#include <sys/stat.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <trainbench/results/durable_file.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/text_file.hpp>

namespace tb {

namespace {

constexpr const char* kHeader = "trainbench cache manifest 1";

std::string join_path(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

std::string hex32(std::uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(v));
  return buf;
}

// One manifest line: "<size> <crc32 hex> <name>" (the name last: it may hold spaces).
std::optional<CacheFile> parse_line(const std::string& line) {
  std::istringstream in(line);
  CacheFile f;
  std::string crc;
  if (!(in >> f.size >> crc) || crc.size() != 8 || in.get() != ' ') return std::nullopt;
  std::getline(in, f.name);
  char* end = nullptr;
  f.crc32 = static_cast<std::uint32_t>(std::strtoul(crc.c_str(), &end, 16));
  if (*end != '\0' || f.name.empty()) return std::nullopt;
  return f;
}

}  // namespace

std::optional<CacheFile> describe_cache_file(const std::string& dir, const std::string& name) {
  std::ifstream in(join_path(dir, name), std::ios::binary);
  if (!in) return std::nullopt;
  CacheFile f;
  f.name = name;
  uLong crc = crc32(0L, Z_NULL, 0);
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buffer), static_cast<uInt>(in.gcount()));
    f.size += static_cast<std::uint64_t>(in.gcount());
  }
  if (in.bad()) return std::nullopt;
  f.crc32 = static_cast<std::uint32_t>(crc);
  return f;
}

void write_cache_manifest(const std::string& dir, const std::vector<std::string>& names) {
  std::string text = std::string(kHeader) + "\n";
  for (const auto& name : names) {
    const auto f = describe_cache_file(dir, name);
    if (!f) throw OutputError(join_path(dir, kCacheManifestName), "cannot read " + join_path(dir, name));
    text += std::to_string(f->size) + " " + hex32(f->crc32) + " " + name + "\n";
  }
  write_file_durably(join_path(dir, kCacheManifestName), text);
}

std::string verify_cache(const std::string& dir, std::uint64_t checksum_limit_bytes) {
  const std::string manifest = kCacheManifestName;
  const auto text = read_text_file(join_path(dir, manifest));
  if (!text) return manifest + ": missing";
  std::istringstream in(*text);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return manifest + ": unknown format";
  std::vector<CacheFile> files;
  for (int number = 2; std::getline(in, line); ++number) {
    const auto f = parse_line(line);
    if (!f) return manifest + ": malformed line " + std::to_string(number);
    files.push_back(*f);
  }
  // Sizes first, one stat each: a truncated or replaced file is usually found without reading.
  std::uint64_t total = 0;
  for (const auto& want : files) {
    struct stat st {};
    if (::stat(join_path(dir, want.name).c_str(), &st) != 0) return want.name + ": missing";
    if (static_cast<std::uint64_t>(st.st_size) != want.size)
      return want.name + ": size mismatch (" + std::to_string(st.st_size) + " bytes, expected " +
             std::to_string(want.size) + ")";
    total += want.size;
  }
  if (total > checksum_limit_bytes) return "";
  for (const auto& want : files) {
    const auto have = describe_cache_file(dir, want.name);
    if (!have) return want.name + ": unreadable";
    if (have->size != want.size || have->crc32 != want.crc32) return want.name + ": checksum mismatch";
  }
  return "";
}

}  // namespace tb
