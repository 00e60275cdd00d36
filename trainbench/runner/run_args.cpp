#include <trainbench/runner/run_args.hpp>

#include <algorithm>
#include <filesystem>

#include <trainbench/build_config.hpp>

namespace tb {

namespace {

constexpr const char* kDefaultMatrix = "scenarios/quick.json";

bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

// "--out" of "--out" and of "--out=DIR".
std::string option_name(const std::string& arg) { return arg.substr(0, arg.find('=')); }

// Whether `arg` is an option whose value is the next argument.
bool value_follows(const std::string& arg, const TakesValue& takes_value) {
  return is_option(arg) && arg.find('=') == std::string::npos && takes_value(arg);
}

// The positions of the matrix arguments (neither an option nor an option's value).
std::vector<std::size_t> positionals(const std::vector<std::string>& args, const TakesValue& takes_value) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (value_follows(args[i], takes_value)) ++i;
    else if (!is_option(args[i])) at.push_back(i);
  return at;
}

}  // namespace

std::string default_matrix() {
  if (std::filesystem::exists(kDefaultMatrix)) return kDefaultMatrix;
  return std::string(TRAINBENCH_SOURCE_DIR) + "/" + kDefaultMatrix;
}

std::vector<std::string> resume_arguments(const nlohmann::json& command_line, const std::vector<std::string>& given,
                                          const TakesValue& takes_value) {
  std::vector<std::string> original;
  if (command_line.is_array())
    for (std::size_t i = 2; i < command_line.size(); ++i)  // after "trainbench run"
      if (command_line[i].is_string()) original.push_back(command_line[i].get<std::string>());
  const auto matrix_at = positionals(original, takes_value);
  const bool matrix_given = !positionals(given, takes_value).empty();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < original.size(); ++i) {
    const std::string name = is_option(original[i]) ? option_name(original[i]) : "";
    // How progress is shown is chosen anew each time: a run started with --quiet resumes
    // with --verbose (together they are a usage error), or with the default display.
    const bool dropped =
        name == "--out" || name == "--resume" || name == "--force" || name == "--quiet" || name == "--verbose";
    const bool with_value = value_follows(original[i], takes_value) && i + 1 < original.size();
    if (dropped || (matrix_given && std::find(matrix_at.begin(), matrix_at.end(), i) != matrix_at.end())) {
      if (with_value) ++i;
      continue;
    }
    out.push_back(original[i]);
    if (with_value) out.push_back(original[++i]);
  }
  out.insert(out.end(), given.begin(), given.end());
  return out;
}

}  // namespace tb
