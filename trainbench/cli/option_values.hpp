// Option values that are numbers, checked once for every command.
#pragma once
#include <string>

namespace tb::cli {

// `text` as a non-negative number for `option` (e.g. --fail-on-regression 5); InputError
// "command line: OPTION: expected a non-negative number, got 'TEXT'" otherwise.
double parse_non_negative(const std::string& option, const std::string& text);

// `text` as a duration in seconds for `option`: a positive number with a unit, s, m or h
// ("90s", "15m", "1.5h"; a bare number is seconds). InputError naming the option otherwise.
double parse_duration(const std::string& option, const std::string& text);

}  // namespace tb::cli
