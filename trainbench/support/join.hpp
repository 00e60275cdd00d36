#pragma once
// Joins texts with a separator ("a, b, c"): every message that lists things (allowed values,
// differences between runs, scenario names) needs it, so it is written once.

#include <string>
#include <string_view>
#include <vector>

namespace tb {

inline std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace tb
