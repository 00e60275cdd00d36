#include <trainbench/capacity/byte_size.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include <trainbench/support/error.hpp>

namespace tb::capacity {
namespace {

std::string trim(const std::string& s) {
  auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  auto end = s.find_last_not_of(" \t");
  return s.substr(begin, end - begin + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Multiplier of a lower-cased suffix, or 0 when unknown.
double suffix_multiplier(const std::string& suffix) {
  static const std::pair<const char*, double> kSuffixes[] = {
      {"", 1},
      {"b", 1},
      {"kib", 1024.0},
      {"mib", 1024.0 * 1024},
      {"gib", 1024.0 * 1024 * 1024},
      {"tib", 1024.0 * 1024 * 1024 * 1024},
      {"ki", 1024.0},
      {"mi", 1024.0 * 1024},
      {"gi", 1024.0 * 1024 * 1024},
      {"ti", 1024.0 * 1024 * 1024 * 1024},
      {"k", 1e3},
      {"kb", 1e3},
      {"m", 1e6},
      {"mb", 1e6},
      {"g", 1e9},
      {"gb", 1e9},
      {"t", 1e12},
      {"tb", 1e12},
  };
  for (const auto& [name, mult] : kSuffixes)
    if (suffix == name) return mult;
  return 0;
}

int decimals(double scaled, ByteDigits digits) {
  if (digits == ByteDigits::one_decimal) return 1;
  return scaled >= 100 ? 0 : (scaled >= 10 ? 1 : 2);
}

}  // namespace

std::int64_t parse_byte_size(const std::string& text, const std::string& field_for_errors) {
  const std::string field = field_for_errors;
  const std::string s = trim(text);
  TB_CHECK_INPUT(!s.empty(), "command line", field, "empty byte size");
  std::size_t number_end = 0;
  while (number_end < s.size() && (std::isdigit(static_cast<unsigned char>(s[number_end])) || s[number_end] == '.'))
    ++number_end;
  TB_CHECK_INPUT(number_end > 0, "command line", field, "expected a byte size like 4GiB, got '", text, "'");
  const std::string number = s.substr(0, number_end);
  TB_CHECK_INPUT(std::count(number.begin(), number.end(), '.') <= 1 && number != ".", "command line", field,
                 "malformed number in '", text, "'");
  const std::string suffix = lower(trim(s.substr(number_end)));
  const double mult = suffix_multiplier(suffix);
  TB_CHECK_INPUT(mult > 0, "command line", field, "unknown unit '", suffix, "' in '", text,
                 "' (use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB)");
  const double value = std::strtod(number.c_str(), nullptr) * mult;
  TB_CHECK_INPUT(std::isfinite(value) && value < 9.2e18, "command line", field, "byte size too large: '", text, "'");
  return static_cast<std::int64_t>(std::llround(value));
}

std::string format_bytes(std::int64_t bytes, ByteDigits digits) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const bool negative = bytes < 0;
  double v = std::fabs(static_cast<double>(bytes));
  int unit = 0;
  while (v >= 1024.0 && unit < 5) {
    v /= 1024.0;
    ++unit;
  }
  char buf[64];
  if (unit == 0)
    std::snprintf(buf, sizeof buf, "%s%lld B", negative ? "-" : "",
                  static_cast<long long>(std::fabs(static_cast<double>(bytes))));
  else std::snprintf(buf, sizeof buf, "%s%.*f %s", negative ? "-" : "", decimals(v, digits), v, kUnits[unit]);
  return buf;
}

}  // namespace tb::capacity
