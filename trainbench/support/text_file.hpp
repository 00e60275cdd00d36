// Whole-file reads of small text files (/proc, /sys) that may legitimately be missing.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace tb {

// The file's contents; nullopt when it cannot be opened or read. Never throws for I/O.
std::optional<std::string> read_text_file(const std::filesystem::path& path);

}  // namespace tb
