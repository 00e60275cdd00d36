// Lenient reads of one field of a JSON object a user may have edited (results.json's sections):
// never throwing, `fallback` when `j` is not an object, lacks the key or holds another type
// there. The strict reads (which refuse the file by name) are json_integer.hpp's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tb {

double field_number(const nlohmann::json& j, const char* key, double fallback = 0.0);
std::optional<double> optional_number(const nlohmann::json& j, const char* key);
std::string field_text(const nlohmann::json& j, const char* key, const std::string& fallback = "");
// Rounded and clamped to the int64 range (1e300 in an edited file is not undefined behaviour).
std::int64_t field_integer(const nlohmann::json& j, const char* key, std::int64_t fallback = 0);
std::optional<std::int64_t> optional_integer(const nlohmann::json& j, const char* key);
bool field_flag(const nlohmann::json& j, const char* key, bool fallback = false);
// The object at `key`, or nullptr.
const nlohmann::json* field_object(const nlohmann::json& j, const char* key);

// Writes j[key] = *value when there is one; an absent value writes no key.
template <typename T>
void put_optional(nlohmann::json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

}  // namespace tb
