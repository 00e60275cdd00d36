// Integer fields of JSON a user hands back to trainbench (results.json): nlohmann's get<int>()
// casts a float such as 1e300 straight to the integer type, which is undefined behaviour, and
// narrows a large integer silently; this refuses both with the key and a short excerpt.
#pragma once
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/option_spec.hpp>

namespace tb {

// j[key] as a T, or `fallback` when j has no such key. std::invalid_argument
// ("key: must be an integer in [min, max], got 1e+300") when it is not an integer that fits.
template <typename T>
T integer_field(const nlohmann::json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  const nlohmann::json& v = *it;
  bool fits = false;
  if (v.is_number_unsigned())
    fits = std::cmp_less_equal(v.get<std::uint64_t>(), std::numeric_limits<T>::max());
  else if (v.is_number_integer())
    fits = std::in_range<T>(v.get<std::int64_t>());
  if (!fits)
    throw std::invalid_argument(std::string(key) + ": must be an integer in [" +
                                std::to_string(std::numeric_limits<T>::min()) + ", " +
                                std::to_string(std::numeric_limits<T>::max()) + "], got " + excerpt(v));
  return v.get<T>();
}

}  // namespace tb
