#include <trainbench/support/file_tail.hpp>

#include <algorithm>
#include <fstream>

namespace tb {

std::string read_file_tail(const std::string& path, std::size_t max_lines, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in || max_lines == 0 || max_bytes == 0) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  const std::streamoff window = std::min<std::streamoff>(size, static_cast<std::streamoff>(max_bytes) + 1);
  in.seekg(size - window);
  std::string text(static_cast<std::size_t>(window), '\0');
  in.read(text.data(), window);
  text.resize(static_cast<std::size_t>(in.gcount()));

  // The window reaches back one byte before the last max_bytes: that byte tells whether they
  // start at a line boundary.
  const bool starts_mid_file = size > static_cast<std::streamoff>(max_bytes);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
    text.pop_back();
  if (text.empty()) return "";
  bool cut = false;
  if (starts_mid_file) {
    const bool boundary = text[0] == '\n';
    text.erase(0, 1);
    cut = true;
    // A partial first line goes, unless nothing else would remain.
    if (!boundary) {
      const auto nl = text.find('\n');
      if (nl != std::string::npos) text.erase(0, nl + 1);
    }
  }
  // Keep the last max_lines lines.
  std::size_t lines = 0, pos = text.size();
  while (pos > 0) {
    const auto nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) break;
    if (++lines == max_lines) {
      text.erase(0, nl + 1);
      cut = true;
      break;
    }
    pos = nl;
  }
  if (text.empty()) return "";
  return cut ? "...\n" + text : text;
}

}  // namespace tb
