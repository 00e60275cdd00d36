// Deterministic number formatting shared by the reporters (fixed precision, "C" locale), so
// golden files are stable across machines.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tb::report {

// "%.{digits}f"; non-finite values print as "-".
std::string fixed(double value, int digits);
// Shortest round-trip-ish form for machine-readable outputs ("%.9g").
std::string exact(double value);
// Seconds as milliseconds with `digits` decimals: 0.0042 -> "4.200".
std::string millis(double seconds, int digits = 3);
// Percent of a share with no decimals: 0.283 -> "28".
std::string percent(double share, int digits = 0);
// A size cell: 671088640 -> "640.0 MiB" (capacity::format_bytes, one decimal); 0 or less,
// i.e. not measured -> "-".
std::string bytes(std::int64_t n);
// Large rates with thousands grouping kept simple: 15282.2 -> "15282.2".
std::string rate(double per_s);
// `digits` significant digits without exponent or trailing zeros: 0.00474 -> "0.00474",
// 5.82 -> "5.82", 10.0 -> "10", 1234.4 -> "1234"; 0 -> "0"; non-finite -> "-".
std::string significant(double value, int digits = 3);
// Counts with an SI suffix: 1e8 -> "100M", 4.74e6 -> "4.74M", 2500 -> "2.5k", 12 -> "12".
std::string si_count(double value);
// Signed percent of a share: 0.032 -> "+3.2%", -0.01 -> "-1.0%".
std::string signed_percent(double share, int digits = 1);
// "1.19x".
std::string times(double ratio);

}  // namespace tb::report
