// Declared options: what a model, a dataset or a matrix section accepts (name, type, range,
// default, one line of help), and one generic validator that checks a JSON object against the
// declaration before any work starts. Every error is an InputError naming the file and the field.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

enum class OptionType {
  integer,       // JSON integer, within [min, max] when given
  number,        // any JSON number, within [min, max] when given
  boolean,       // true or false
  string,        // any string
  path,          // a non-empty string naming a file or folder (existence is not checked here)
  string_enum,   // one of `allowed`
  integer_list,  // a non-empty array of integers, each within [min, max] when given
  byte_size,     // "4GiB", "512MB", ... or a positive integer number of bytes
  custom,        // anything; `check` alone decides
};

// "integer", "number", "true or false", "string", "path", "one of a, b", "list of integers", ...
std::string option_type_name(OptionType type);

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::integer;
  std::optional<double> min;  // integer, number, integer_list items
  std::optional<double> max;
  std::vector<std::string> allowed;  // string_enum
  nlohmann::json default_value;      // null: no fixed default (the description says)
  std::string description;           // one line, shown by `trainbench models`
  // Further check of a value that passed the type check (custom: the only check); returns ""
  // when fine, else what is wrong (e.g. "must be \"max\"").
  std::function<std::string(const nlohmann::json& value)> check;
};

// A rule across options (e.g. d_model divisible by heads). `given` is the object as written;
// `resolved` is the declared defaults overlaid by `base` and then by `given`. Returns "" when
// fine, else the message; `field` names the option blamed.
struct OptionRule {
  std::string field;
  std::function<std::string(const nlohmann::json& given, const nlohmann::json& resolved)> check;
};

// The options of one model, dataset or section.
struct OptionSet {
  std::vector<OptionSpec> options;
  std::vector<OptionRule> rules;
};

// Where the options come from, for messages.
struct OptionContext {
  std::string file;          // the matrix file
  std::string field_prefix;  // "model_options", "capacity", ...
  std::string owner;         // "model 'mlp'", "dataset 'images'", "the capacity section"
};

// Checks `given` (must be an object) against `set`: unknown keys (with a did-you-mean
// suggestion), types, ranges, allowed values, per-option checks, then the rules on
// `resolved` = defaults <- base <- given. Throws InputError(file, "<prefix>.<option>", ...), e.g.
//   model_options.hidden: must be an integer in [1, 65536], got 0
//   model_options.hiden: unknown option of model 'mlp'; did you mean 'hidden'? (known: hidden, depth)
void validate_options(const nlohmann::json& given, const OptionSet& set, const OptionContext& context,
                      const nlohmann::json& base = nlohmann::json::object());

// The defaults of `set` (options without one are left out), overlaid by `base`, then `given`.
nlohmann::json resolve_options(const nlohmann::json& given, const OptionSet& set,
                               const nlohmann::json& base = nlohmann::json::object());

// Checks one value against one spec; returns "" when fine, else the message without the field.
std::string check_option_value(const nlohmann::json& value, const OptionSpec& spec);

// Levenshtein distance (for "did you mean").
std::size_t edit_distance(const std::string& a, const std::string& b);

// The closest of `candidates` to `word`, when close enough to be a plausible typo (distance at
// most max(1, len/3), or a case-insensitive match); "" otherwise.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

// A JSON value for a message: its dump, cut to `max_chars` with "..." when longer.
std::string excerpt(const nlohmann::json& value, std::size_t max_chars = 40);
// The same for text the user typed (a --set key, a file's token).
std::string text_excerpt(std::string text, std::size_t max_chars = 60);

// One line per option for `trainbench models`: "hidden (integer in [1, 65536], default 1024): ..."
std::string describe_option(const OptionSpec& spec);

}  // namespace tb
