// The end of a text file: how a crashed child's last words (its captured stderr) get into a
// one-scenario message without letting a chatty child flood results.json.
#pragma once
#include <cstddef>
#include <string>

namespace tb {

inline constexpr std::size_t kTailMaxLines = 20;
inline constexpr std::size_t kTailMaxBytes = 2048;

// At most the last `max_lines` lines and `max_bytes` bytes of `path`, without trailing blank
// space. When the byte limit cuts a line, that partial first line is dropped (a whole shorter
// tail reads better than half a line), unless it is the only line; a cut tail starts with
// "...\n". "" when the file is missing, unreadable or empty: a tail is a courtesy, never an error.
std::string read_file_tail(const std::string& path, std::size_t max_lines = kTailMaxLines,
                           std::size_t max_bytes = kTailMaxBytes);

}  // namespace tb
