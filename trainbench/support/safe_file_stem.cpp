#include <trainbench/support/safe_file_stem.hpp>

namespace tb {

std::string safe_file_stem(const std::string& id) {
  std::string s = id;
  for (auto& c : s) {
    // ASCII ranges rather than std::isalnum, whose answer depends on the locale.
    const bool safe =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!safe) c = '_';
  }
  return s;
}

}  // namespace tb
