#include <trainbench/matrix/option_spec.hpp>
#include <trainbench/support/join.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include <trainbench/capacity/byte_size.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

using nlohmann::json;

namespace {

std::string format_bound(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// "a", "b" (each as a JSON string): the allowed values of an enum option.
std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& s : items) quoted.push_back(json(s).dump());
  return join(quoted);
}

// " in [1, 65536]", " >= 1", " <= 8", or "".
std::string range_text(const OptionSpec& spec) {
  if (spec.min && spec.max) return " in [" + format_bound(*spec.min) + ", " + format_bound(*spec.max) + "]";
  if (spec.min) return " >= " + format_bound(*spec.min);
  if (spec.max) return " <= " + format_bound(*spec.max);
  return "";
}

bool in_range(double v, const OptionSpec& spec) {
  return (!spec.min || v >= *spec.min) && (!spec.max || v <= *spec.max);
}

std::string with_article(const std::string& type_name) {
  const char c = type_name.empty() ? 'x' : type_name.front();
  return (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' ? "an " : "a ") + type_name;
}

// "must be an integer in [1, 65536], got 0"
std::string expected(const OptionSpec& spec, const json& value) {
  std::string what;
  switch (spec.type) {
    case OptionType::boolean: what = "true or false"; break;
    case OptionType::string_enum: what = "one of " + quoted_list(spec.allowed); break;
    case OptionType::integer_list:
      what = "a non-empty list of integers" + (range_text(spec).empty() ? "" : " each" + range_text(spec));
      break;
    case OptionType::byte_size: what = "a byte size (\"4GiB\", \"512MB\") or a positive integer of bytes"; break;
    default: what = with_article(option_type_name(spec.type)) + range_text(spec); break;
  }
  return "must be " + what + ", got " + excerpt(value);
}

// What is wrong with a value: `message` empty when fine; `where` is a suffix of the field ("[1]").
struct Problem {
  std::string where;
  std::string message;
};

std::string check_type(const json& value, const OptionSpec& spec, std::string* where) {
  switch (spec.type) {
    case OptionType::integer:
      if (!value.is_number_integer()) return expected(spec, value);
      if (!in_range(value.is_number_unsigned() ? static_cast<double>(value.get<std::uint64_t>())
                                               : static_cast<double>(value.get<std::int64_t>()),
                    spec))
        return expected(spec, value);
      return "";
    case OptionType::number:
      if (!value.is_number() || !std::isfinite(value.get<double>()) || !in_range(value.get<double>(), spec))
        return expected(spec, value);
      return "";
    case OptionType::boolean: return value.is_boolean() ? "" : expected(spec, value);
    case OptionType::string: return value.is_string() ? "" : expected(spec, value);
    case OptionType::path: return value.is_string() && !value.get<std::string>().empty() ? "" : expected(spec, value);
    case OptionType::string_enum:
      if (!value.is_string() ||
          std::find(spec.allowed.begin(), spec.allowed.end(), value.get<std::string>()) == spec.allowed.end())
        return expected(spec, value);
      return "";
    case OptionType::integer_list:
      if (!value.is_array() || value.empty()) return expected(spec, value);
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i].is_number_integer() && in_range(value[i].get<double>(), spec)) continue;
        OptionSpec item = spec;
        item.type = OptionType::integer;
        if (where) *where = "[" + std::to_string(i) + "]";
        return expected(item, value[i]);
      }
      return "";
    case OptionType::byte_size:
      if (value.is_number_integer()) return value.get<double>() >= 1 ? "" : expected(spec, value);
      if (!value.is_string()) return expected(spec, value);
      try {
        capacity::parse_byte_size(value.get<std::string>(), spec.name);
      } catch (const InputError&) { return expected(spec, value); }
      return "";
    case OptionType::custom: return "";
  }
  return "";
}

}  // namespace

std::string option_type_name(OptionType type) {
  switch (type) {
    case OptionType::integer: return "integer";
    case OptionType::number: return "number";
    case OptionType::boolean: return "boolean";
    case OptionType::string: return "string";
    case OptionType::path: return "path";
    case OptionType::string_enum: return "enum";
    case OptionType::integer_list: return "list of integers";
    case OptionType::byte_size: return "byte size";
    case OptionType::custom: return "value";
  }
  return "value";
}

std::string text_excerpt(std::string text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  // Cut before a UTF-8 continuation byte, never inside a character: the excerpt may end up in
  // results.json, whose writer refuses broken UTF-8.
  std::size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string excerpt(const json& value, std::size_t max_chars) {
  // replace: a --set bare string may hold invalid UTF-8, which a plain dump() throws on.
  return text_excerpt(value.dump(-1, ' ', false, json::error_handler_t::replace), max_chars);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  const auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = lower(c) == lower(word) ? 0 : edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

namespace {
Problem find_problem(const json& value, const OptionSpec& spec) {
  Problem p;
  p.message = check_type(value, spec, &p.where);
  if (p.message.empty() && spec.check) p.message = spec.check(value);
  return p;
}
}  // namespace

std::string check_option_value(const json& value, const OptionSpec& spec) {
  const Problem p = find_problem(value, spec);
  return p.message.empty() || p.where.empty() ? p.message : p.where + ": " + p.message;
}

json resolve_options(const json& given, const OptionSet& set, const json& base) {
  json resolved = json::object();
  for (const auto& spec : set.options)
    if (!spec.default_value.is_null()) resolved[spec.name] = spec.default_value;
  if (base.is_object()) resolved.merge_patch(base);
  if (given.is_object())
    for (const auto& [key, value] : given.items()) resolved[key] = value;  // null stays null
  return resolved;
}

void validate_options(const json& given, const OptionSet& set, const OptionContext& context, const json& base) {
  const std::string& prefix = context.field_prefix;
  // A key from the file is quoted by a short excerpt: it may be megabytes long.
  const auto field = [&](const std::string& key) {
    return prefix.empty() ? text_excerpt(key) : prefix + "." + text_excerpt(key);
  };
  if (!given.is_object()) throw InputError(context.file, prefix, "must be an object, got " + excerpt(given));
  std::vector<std::string> known;
  for (const auto& spec : set.options) known.push_back(spec.name);
  for (const auto& [key, value] : given.items()) {
    const std::string& name = key;  // clang before 16 cannot capture a structured binding
    const auto spec =
        std::find_if(set.options.begin(), set.options.end(), [&](const OptionSpec& s) { return s.name == name; });
    if (spec == set.options.end()) {
      std::string message = "unknown option";
      if (!context.owner.empty()) message += " of " + context.owner;
      const std::string suggestion = closest_name(key, known);
      if (!suggestion.empty()) message += "; did you mean '" + suggestion + "'?";
      message += known.empty() ? " (it takes no options)" : " (known: " + join(known) + ")";
      throw InputError(context.file, field(key), message);
    }
    const Problem problem = find_problem(value, *spec);
    if (!problem.message.empty()) throw InputError(context.file, field(key) + problem.where, problem.message);
  }
  if (set.rules.empty()) return;
  const json resolved = resolve_options(given, set, base);
  for (const auto& rule : set.rules) {
    const std::string problem = rule.check(given, resolved);
    if (!problem.empty()) throw InputError(context.file, field(rule.field), problem);
  }
}

std::string describe_option(const OptionSpec& spec) {
  std::string type;
  switch (spec.type) {
    case OptionType::string_enum: type = "one of " + quoted_list(spec.allowed); break;
    case OptionType::integer_list:
      type = "list of integers" + (range_text(spec).empty() ? "" : " each" + range_text(spec));
      break;
    default: type = option_type_name(spec.type) + range_text(spec); break;
  }
  if (!spec.default_value.is_null()) type += ", default " + excerpt(spec.default_value);
  return spec.name + " (" + type + ")" + (spec.description.empty() ? "" : ": " + spec.description);
}

}  // namespace tb
