// The one command-line parser of trainbench. A command declares its options and positional
// arguments as data (CommandSpec); parse_arguments reads `--x v`, `--x=v`, repeated options and
// positionals against it, and format_usage renders the same table as the command's --help, so
// the help cannot drift from what is accepted.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::cli {

struct Option {
  std::string name;         // "--out"
  std::string placeholder;  // "DIR" when the option takes a value; "" for a flag
  std::string help;         // may span lines ('\n'); indented under the option in the usage
  bool repeatable = false;  // every value is kept (--set); otherwise the last one counts
  std::string short_name;   // "-v": the same option in one letter; "" when it has none

  bool takes_value() const { return !placeholder.empty(); }
};

struct Positional {
  std::string name;  // "MATRIX"
  std::string help;
};

struct CommandSpec {
  std::string name;                      // "run"
  std::string summary;                   // one line, for `trainbench --help`
  std::vector<std::string> synopses;     // "[MATRIX] [options]": usage lines after the name
  std::string description;               // paragraphs shown by `trainbench <name> --help`
  std::vector<Positional> positionals;   // at most this many are accepted, unless:
  bool last_positional_repeats = false;  // the last one takes any number of values (merge DIR...)
  std::vector<Option> options;           // -h/--help is implied
  std::string epilogue;                  // e.g. the exit codes, after the options
  bool hidden = false;                   // left out of `trainbench --help` (worker)

  // The option named `name` (its long or its short name), nullptr when there is none.
  const Option* find(const std::string& name) const;
};

// What was given, in order, after parsing against a CommandSpec.
class ParsedArgs {
 public:
  bool help() const { return help_; }
  const std::vector<std::string>& positionals() const { return positionals_; }
  // The i-th positional argument, "" when fewer were given.
  std::string positional(std::size_t i) const { return i < positionals_.size() ? positionals_[i] : ""; }
  bool has(const std::string& option) const;
  // The last value given for `option`, if any.
  std::optional<std::string> value(const std::string& option) const;
  std::string value_or(const std::string& option, const std::string& fallback) const {
    return value(option).value_or(fallback);
  }
  // Every value given for a repeatable `option`, in order.
  std::vector<std::string> values(const std::string& option) const;
  // Of the given flags, the one given last (e.g. {"--isolate", "--no-isolate"}); "" if none.
  std::string last_of(const std::vector<std::string>& flags) const;
  // Options and positionals as `--x v` tokens, without those named in `drop`.
  std::vector<std::string> tokens_without(const std::vector<std::string>& drop) const;

 private:
  friend ParsedArgs parse_arguments(const CommandSpec&, const std::vector<std::string>&);
  bool help_ = false;
  std::vector<std::pair<std::string, std::optional<std::string>>> options_;  // in order given
  std::vector<std::string> positionals_;
};

// Parses `args` (no program or command names); -h/--help anywhere stops parsing with help() set;
// a short name is recorded as its long name. InputError("command line", token, why) for an
// unknown option, a missing value, a value given to a flag, or a positional beyond those declared.
ParsedArgs parse_arguments(const CommandSpec& spec, const std::vector<std::string>& args);

// "usage: trainbench NAME ..." with the description, options (aligned) and epilogue.
std::string format_usage(const CommandSpec& spec);

}  // namespace tb::cli
