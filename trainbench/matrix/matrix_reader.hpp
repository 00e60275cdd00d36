// Internal to the matrix parser: typed readers of matrix JSON that raise InputError naming the
// file and the field (a dotted path), so every part of the parser words a bad value alike.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/option_spec.hpp>
#include <trainbench/matrix/scenario_choices.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/join.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb::matrix_detail {

using nlohmann::json;

template <typename T>
bool contains(const std::vector<T>& items, const T& s) {
  return std::find(items.begin(), items.end(), s) != items.end();
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(file_, field, message);
  }

  void expect_object(const json& j, const std::string& field) const {
    if (!j.is_object()) fail(field, "must be an object, got " + excerpt(j));
  }

  // Object whose keys must all be in `allowed`.
  void expect_keys(const json& j, const std::string& field, const std::vector<std::string>& allowed,
                   const std::string& what) const {
    expect_object(j, field);
    for (const auto& [key, value] : j.items()) {
      if (contains(allowed, key)) continue;
      const std::string suggestion = closest_name(key, allowed);
      const std::string name = text_excerpt(key);
      fail(field.empty() ? name : field + "." + name,
           "unknown " + what + " '" + name + "' (allowed: " + join(allowed) + ")" +
               (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?"));
    }
  }

  std::string string(const json& j, const std::string& field) const {
    if (!j.is_string()) fail(field, "must be a string, got " + excerpt(j));
    return j.get<std::string>();
  }

  std::string one_of(const json& j, const std::string& field, const std::vector<std::string>& allowed,
                     const std::string& what) const {
    const std::string s = string(j, field);
    if (!contains(allowed, s))
      fail(field, "unknown " + what + " '" + text_excerpt(s) + "' (allowed: " + join(allowed) + ")");
    return s;
  }

  // One of E's names (scenario_choices.hpp), as its enum value.
  template <ScenarioChoice E>
  E choice(const json& j, const std::string& field, const std::string& what) const {
    return *parse_choice<E>(one_of(j, field, choice_names<E>(), what));
  }

  bool boolean(const json& j, const std::string& field) const {
    if (!j.is_boolean()) fail(field, "must be true or false, got " + excerpt(j));
    return j.get<bool>();
  }

  // Integers in [min_value, max_value]; a larger one is refused, never clamped.
  long long integer(const json& j, const std::string& field, long long min_value,
                    long long max_value = std::numeric_limits<long long>::max()) const {
    if (!j.is_number_integer()) fail(field, "must be an integer, got " + excerpt(j));
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(max_value))
      fail(field, "must be <= " + std::to_string(max_value) + ", got " + excerpt(j));
    const long long v = j.get<long long>();
    if (v < min_value) fail(field, "must be >= " + std::to_string(min_value) + ", got " + excerpt(j));
    if (v > max_value) fail(field, "must be <= " + std::to_string(max_value) + ", got " + excerpt(j));
    return v;
  }

  int small_int(const json& j, const std::string& field, int min_value,
                int max_value = std::numeric_limits<int>::max()) const {
    return static_cast<int>(integer(j, field, min_value, max_value));
  }

  double number(const json& j, const std::string& field, double min_value, bool strictly,
                double max_value = std::numeric_limits<double>::max()) const {
    if (!j.is_number()) fail(field, "must be a number, got " + excerpt(j));
    const double v = j.get<double>();
    if (strictly ? !(v > min_value) : !(v >= min_value))
      fail(field, detail::concat("must be ", strictly ? "> " : ">= ", min_value, ", got ", excerpt(j)));
    if (!(v <= max_value)) fail(field, detail::concat("must be <= ", max_value, ", got ", excerpt(j)));
    return v;
  }

  // An axis: a scalar (one-element axis) or a non-empty array without duplicates.
  template <typename T, typename ReadOne>
  std::vector<T> axis(const json& j, const std::string& field, ReadOne read_one) const {
    std::vector<T> values;
    if (!j.is_array()) {
      values.push_back(read_one(j, field));
      return values;
    }
    if (j.empty()) fail(field, "must not be empty (give at least one value)");
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string item = field + "[" + std::to_string(i) + "]";
      T v = read_one(j[i], item);
      if (std::find(values.begin(), values.end(), v) != values.end()) fail(item, "duplicate value " + excerpt(j[i]));
      values.push_back(std::move(v));
    }
    return values;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

}  // namespace tb::matrix_detail
