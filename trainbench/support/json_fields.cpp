#include <trainbench/support/json_fields.hpp>

#include <algorithm>
#include <cmath>

namespace tb {

double field_number(const nlohmann::json& j, const char* key, double fallback) {
  return optional_number(j, key).value_or(fallback);
}

std::optional<double> optional_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string field_text(const nlohmann::json& j, const char* key, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : fallback;
}

// Clamped first: a float beyond the integer's range is undefined behaviour in a cast, and
// llround's result for it is unspecified.
std::optional<std::int64_t> optional_integer(const nlohmann::json& j, const char* key) {
  const auto v = optional_number(j, key);
  if (!v) return std::nullopt;
  return std::llround(std::clamp(*v, -9.0e18, 9.0e18));
}

std::int64_t field_integer(const nlohmann::json& j, const char* key, std::int64_t fallback) {
  return optional_integer(j, key).value_or(fallback);
}

bool field_flag(const nlohmann::json& j, const char* key, bool fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return (it != j.end() && it->is_boolean()) ? it->get<bool>() : fallback;
}

const nlohmann::json* field_object(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return (it != j.end() && it->is_object()) ? &*it : nullptr;
}

}  // namespace tb
