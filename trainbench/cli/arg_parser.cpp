#include <trainbench/cli/arg_parser.hpp>

#include <algorithm>
#include <sstream>

#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

constexpr const char* kWhere = "command line";

bool is_help(const std::string& token) { return token == "-h" || token == "--help"; }

// "-" alone is a positional (by convention stdin), anything else with a leading '-' an option.
bool looks_like_option(const std::string& token) { return token.size() > 1 && token[0] == '-'; }

std::string positional_names(const CommandSpec& spec) {
  if (spec.positionals.empty()) return "it takes none";
  std::string names;
  for (const auto& p : spec.positionals) names += (names.empty() ? "" : " ") + p.name;
  return "it takes " + names;
}

std::string option_label(const Option& o) {
  const std::string names = o.short_name.empty() ? o.name : o.short_name + ", " + o.name;
  return o.takes_value() ? names + " " + o.placeholder : names;
}

// `text` with every line after the first indented by `indent` spaces.
std::string indent_continuations(const std::string& text, std::size_t indent) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '\n') out += std::string(indent, ' ');
  }
  return out;
}

}  // namespace

const Option* CommandSpec::find(const std::string& option) const {
  const auto it = std::find_if(options.begin(), options.end(), [&](const Option& o) {
    return o.name == option || (!o.short_name.empty() && o.short_name == option);
  });
  return it == options.end() ? nullptr : &*it;
}

bool ParsedArgs::has(const std::string& option) const {
  return std::any_of(options_.begin(), options_.end(), [&](const auto& o) { return o.first == option; });
}

std::optional<std::string> ParsedArgs::value(const std::string& option) const {
  std::optional<std::string> last;
  for (const auto& [name, v] : options_)
    if (name == option) last = v;
  return last;
}

std::vector<std::string> ParsedArgs::values(const std::string& option) const {
  std::vector<std::string> all;
  for (const auto& [name, v] : options_)
    if (name == option && v) all.push_back(*v);
  return all;
}

std::string ParsedArgs::last_of(const std::vector<std::string>& flags) const {
  std::string last;
  for (const auto& o : options_)
    if (std::find(flags.begin(), flags.end(), o.first) != flags.end()) last = o.first;
  return last;
}

std::vector<std::string> ParsedArgs::tokens_without(const std::vector<std::string>& drop) const {
  std::vector<std::string> tokens = positionals_;
  for (const auto& [name, v] : options_) {
    if (std::find(drop.begin(), drop.end(), name) != drop.end()) continue;
    tokens.push_back(name);
    if (v) tokens.push_back(*v);
  }
  return tokens;
}

ParsedArgs parse_arguments(const CommandSpec& spec, const std::vector<std::string>& args) {
  ParsedArgs parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& token = args[i];
    if (is_help(token)) {
      parsed.help_ = true;
      return parsed;
    }
    if (!looks_like_option(token)) {
      TB_CHECK_INPUT(parsed.positionals_.size() < spec.positionals.size() ||
                         (spec.last_positional_repeats && !spec.positionals.empty()),
                     kWhere, token, "unexpected argument (", positional_names(spec), ")");
      parsed.positionals_.push_back(token);
      continue;
    }
    const auto eq = token.find('=');
    const std::string name = token.substr(0, eq);
    const Option* option = spec.find(name);
    TB_CHECK_INPUT(option != nullptr, kWhere, name, "unknown option");
    std::optional<std::string> value;
    if (eq != std::string::npos) {
      TB_CHECK_INPUT(option->takes_value(), kWhere, name, "takes no value");
      value = token.substr(eq + 1);
    } else if (option->takes_value()) {
      TB_CHECK_INPUT(i + 1 < args.size(), kWhere, name, "needs a value (", option->placeholder, ")");
      value = args[++i];
    }
    parsed.options_.emplace_back(option->name, std::move(value));
  }
  return parsed;
}

std::string format_usage(const CommandSpec& spec) {
  std::ostringstream os;
  const std::string command = "trainbench " + spec.name;
  if (spec.synopses.empty()) os << "usage: " << command << "\n";
  for (std::size_t i = 0; i < spec.synopses.size(); ++i)
    os << (i == 0 ? "usage: " : "       ") << command << " " << spec.synopses[i] << "\n";
  if (!spec.summary.empty()) os << "\n" << spec.summary << "\n";
  if (!spec.description.empty()) os << "\n" << spec.description;
  std::size_t width = std::string("-h, --help").size();
  for (const auto& p : spec.positionals) width = std::max(width, p.name.size());
  for (const auto& o : spec.options) width = std::max(width, option_label(o).size());
  const std::size_t indent = 2 + width + 2;
  const auto row = [&](const std::string& label, const std::string& help) {
    os << "  " << label << std::string(width - label.size() + 2, ' ') << indent_continuations(help, indent) << "\n";
  };
  if (!spec.positionals.empty()) {
    os << "\narguments:\n";
    for (const auto& p : spec.positionals) row(p.name, p.help);
  }
  os << "\noptions:\n";
  for (const auto& o : spec.options) row(option_label(o), o.help + (o.repeatable ? " (repeatable)" : ""));
  row("-h, --help", "this text");
  if (!spec.epilogue.empty()) os << "\n" << spec.epilogue;
  return os.str();
}

}  // namespace tb::cli
