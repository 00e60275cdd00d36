// --set KEY=VALUE overrides applied to the matrix JSON before it is parsed (matrix.hpp).
#include <trainbench/matrix/matrix.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <trainbench/support/error.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb {

using nlohmann::json;

namespace {

// nlohmann resizes an array to reach an index past its end: "axes.batch.4000000000=1" would
// allocate four billion nulls. Walks the part of `segments` that exists and refuses such an index.
void check_array_indices(const json& j, const std::vector<std::string>& segments, const std::string& field) {
  const json* at = &j;
  // Past the last existing value the override creates the path, and nlohmann makes a list of any
  // numeric segment there ("new.list.4000000000" would allocate four billion nulls): a created
  // list starts empty, so only index 0 (its first value) is allowed.
  bool creating = false;
  for (const auto& segment : segments) {
    const bool digits =
        !segment.empty() && std::all_of(segment.begin(), segment.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (creating || at->is_null()) {
      creating = true;
      if (digits && segment != "0")
        throw InputError("--set", field,
                         "index " + text_excerpt(segment, 20) + " is past the end of the list (0 values)");
    } else if (at->is_object()) {
      const auto it = at->find(segment);
      if (it == at->end()) creating = true;
      else at = &*it;
    } else if (at->is_array()) {
      if (!digits) return;  // not an index: nlohmann's own error says so
      // More than 9 digits is past the end of any list a matrix holds (and past stoul's range).
      const std::size_t index = segment.size() > 9 ? std::string::npos : std::stoul(segment);
      if (index > at->size())
        throw InputError("--set", field,
                         "index " + text_excerpt(segment, 20) + " is past the end of the list (" +
                             std::to_string(at->size()) + " values)");
      if (index == at->size()) creating = true;  // appends one value
      else at = &(*at)[index];
    } else {
      return;  // a scalar in the way: nlohmann's own error says so
    }
  }
}

// Nesting depth of `j` (a scalar is 0, [] is 1), without recursion. A file is bounded by
// check_json_bounds as it is read, but overrides nest values into values: each one could go
// 64 levels deeper than the last, until dump and copy overflow the stack.
int nesting_depth(const json& j) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> pending{{&j, 0}};
  while (!pending.empty()) {
    const auto [value, depth] = pending.back();
    pending.pop_back();
    if (!value->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *value) pending.emplace_back(&child, depth + 1);
  }
  return deepest;
}

// A bare --set value is kept as a string, and results.json, the history and every report dump
// it: text that is not UTF-8 would make that dump throw after the whole run.
bool valid_utf8(const std::string& text) {
  try {
    (void)json(text).dump();
    return true;
  } catch (const json::type_error&) { return false; }
}
}  // namespace

json apply_set_overrides(json j, const std::vector<std::string>& overrides) {
  for (const auto& item : overrides) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", text_excerpt(item), "expected KEY=VALUE, e.g. steps.max=20 or axes.workers=[0,2]");
    if (!valid_utf8(item)) throw InputError("--set", "", "an override is not valid UTF-8 text");
    const std::string key = item.substr(0, eq);
    const std::string text = item.substr(eq + 1);
    const std::string field = text_excerpt(key);  // a message quotes a short part of a long key
    // Every segment is one more level of nesting in the matrix.
    if (std::count(key.begin(), key.end(), '.') >= kMaxJsonDepth)
      throw InputError("--set", field, "has more than " + std::to_string(kMaxJsonDepth) + " path segments");
    std::string pointer;
    std::vector<std::string> segments;
    std::size_t start = 0;
    while (start <= key.size()) {
      const auto dot = std::min(key.find('.', start), key.size());
      const std::string segment = key.substr(start, dot - start);
      if (segment.empty()) throw InputError("--set", field, "empty path segment");
      pointer += "/";
      for (char c : segment) pointer += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
      segments.push_back(segment);
      start = dot + 1;
    }
    check_array_indices(j, segments, field);
    // A value that does not parse as JSON is a bare string: device=cpu. Too deep or out of range
    // is refused either way, as it would be in the file.
    check_json_bounds(text, "--set", field);
    json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;
    try {
      j[json::json_pointer(pointer)] = std::move(value);
    } catch (const json::exception& e) {
      throw InputError("--set", field, "cannot set this path: " + json_error_text(e));
    }
    if (nesting_depth(j) > kMaxJsonDepth)
      throw InputError("--set", field, "nests the matrix more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  }
  return j;
}

}  // namespace tb
