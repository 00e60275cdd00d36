#include <trainbench/reporters/report_format.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <trainbench/capacity/byte_size.hpp>

namespace tb::report {

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  // Avoid "-0.000" flicker in goldens.
  std::string s(buf);
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string exact(double value) {
  if (!std::isfinite(value)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

std::string millis(double seconds, int digits) { return fixed(seconds * 1e3, digits); }

std::string percent(double share, int digits) { return fixed(share * 100.0, digits); }

std::string bytes(std::int64_t n) {
  return n <= 0 ? "-" : capacity::format_bytes(n, capacity::ByteDigits::one_decimal);
}

std::string rate(double per_s) {
  if (per_s <= 0) return "-";
  return fixed(per_s, per_s >= 100 ? 1 : 3);
}

std::string significant(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  if (value == 0.0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  std::string s = fixed(value, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string si_count(double value) {
  if (!std::isfinite(value)) return "-";
  static const struct {
    double scale;
    const char* suffix;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& u : units)
    if (std::fabs(value) >= u.scale) return significant(value / u.scale) + u.suffix;
  return significant(value);
}

std::string signed_percent(double share, int digits) {
  if (!std::isfinite(share)) return "-";
  const std::string p = percent(share, digits);
  return (p[0] == '-' ? p : "+" + p) + "%";
}

std::string times(double ratio) { return fixed(ratio, 2) + "x"; }

}  // namespace tb::report
