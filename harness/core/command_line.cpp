#include "harness/core/command_line.hpp"

#include "harness/core/error.hpp"

namespace tb {

double parse_non_negative(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw InputError("command line", option, "expected a non-negative number, got '" + text + "'");
}

}  // namespace tb
