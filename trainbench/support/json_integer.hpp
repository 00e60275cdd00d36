// Strict reads of fields of JSON a user hands back to trainbench (results.json): a field of the
// wrong type is refused by its path ("scenarios[3].metrics.step_time_s.median: must be a number,
// got \"fast\""), never in the JSON library's words alone. nlohmann's get<int>() also casts a
// float such as 1e300 straight to the integer type, which is undefined behaviour, and narrows a
// large integer silently; integer_field refuses both.
#pragma once
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/option_spec.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb {

// A field of the wrong type or range: where it is ("metrics.step_time_s.median", relative to
// what was being read) and what is wrong. what() is "field: reason".
class FieldError : public std::invalid_argument {
 public:
  FieldError(std::string field, std::string reason)
      : std::invalid_argument(field + ": " + reason), field_(std::move(field)), reason_(std::move(reason)) {}
  const std::string& field() const noexcept { return field_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string field_;
  std::string reason_;
};

// "scenarios[3]" + "metrics.loss_end" -> "scenarios[3].metrics.loss_end"; "samples" + "[2]" ->
// "samples[2]".
inline std::string field_path(const std::string& outer, const std::string& inner) {
  if (outer.empty()) return inner;
  if (inner.empty()) return outer;
  return outer + (inner.front() == '[' ? "" : ".") + inner;
}

// Runs `read`, which reads the value at `where`: an error inside names its path from there.
template <typename Read>
decltype(auto) within(const std::string& where, Read&& read) {
  try {
    return read();
  } catch (const FieldError& e) {
    throw FieldError(field_path(where, e.field()), e.reason());
  } catch (const nlohmann::json::exception& e) {
    throw FieldError(where, json_error_text(e));
  } catch (const std::invalid_argument& e) {  // a value a parser refused ("unknown status 'x'")
    throw FieldError(where, e.what());
  }
}

// j[key] as a T, or `fallback` when j has no such key. FieldError
// ("key: must be an integer in [min, max], got 1e+300") when it is not an integer that fits.
template <typename T>
T integer_field(const nlohmann::json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  const nlohmann::json& v = *it;
  bool fits = false;
  if (v.is_number_unsigned()) fits = std::cmp_less_equal(v.get<std::uint64_t>(), std::numeric_limits<T>::max());
  else if (v.is_number_integer()) fits = std::in_range<T>(v.get<std::int64_t>());
  if (!fits)
    throw FieldError(key, "must be an integer in [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                              std::to_string(std::numeric_limits<T>::max()) + "], got " + excerpt(v));
  return v.get<T>();
}

// j[key] as a number, text or true/false; `fallback` when absent, FieldError when it is there
// with another type.
inline double number_field(const nlohmann::json& j, const char* key, double fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number()) throw FieldError(key, "must be a number, got " + excerpt(*it));
  return it->get<double>();
}
inline std::string text_field(const nlohmann::json& j, const char* key, const std::string& fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_string()) throw FieldError(key, "must be a string, got " + excerpt(*it));
  return it->get<std::string>();
}
inline bool flag_field(const nlohmann::json& j, const char* key, bool fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_boolean()) throw FieldError(key, "must be true or false, got " + excerpt(*it));
  return it->get<bool>();
}
// The same for a field that must be there.
inline std::string required_text(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) throw FieldError(key, "missing");
  return text_field(j, key, "");
}
// j[key], an object or array read by `read(value)` within its path; FieldError when missing.
template <typename Read>
decltype(auto) required_field(const nlohmann::json& j, const char* key, Read&& read) {
  if (!j.is_object() || !j.contains(key)) throw FieldError(key, "missing");
  return within(key, [&]() -> decltype(auto) { return read(j.at(key)); });
}

}  // namespace tb
