#include <trainbench/cli/option_values.hpp>

#include <trainbench/support/error.hpp>

namespace tb::cli {

double parse_non_negative(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {}
  throw InputError("command line", option, "expected a non-negative number, got '" + text + "'");
}

}  // namespace tb::cli
