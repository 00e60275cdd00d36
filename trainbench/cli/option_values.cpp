#include <trainbench/cli/option_values.hpp>

#include <cmath>

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

double parse_duration(const std::string& option, const std::string& text) {
  std::string number = text;
  double unit = 1;
  if (!number.empty()) {
    switch (number.back()) {
      case 's': unit = 1, number.pop_back(); break;
      case 'm': unit = 60, number.pop_back(); break;
      case 'h': unit = 3600, number.pop_back(); break;
      default: break;
    }
  }
  try {
    std::size_t used = 0;
    const double v = std::stod(number, &used);
    if (!number.empty() && used == number.size() && v > 0 && std::isfinite(v)) return v * unit;
  } catch (const std::exception&) {}
  throw InputError("command line", option, "expected a duration such as 90s, 15m or 1h, got '" + text + "'");
}

}  // namespace tb::cli
