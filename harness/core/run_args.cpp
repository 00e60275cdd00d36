#include "harness/core/run_args.hpp"

#include <algorithm>
#include <filesystem>

#include "harness/capacity/byte_size.hpp"
#include "harness/core/error.hpp"
#include "trainbench/build_config.hpp"

namespace tb {

namespace {

constexpr const char* kDefaultMatrix = "scenarios/quick.json";

std::string take_value(const std::vector<std::string>& args, std::size_t& i) {
  TB_CHECK_INPUT(i + 1 < args.size(), "command line", args[i], "needs a value");
  return args[++i];
}

// The options followed by a value.
bool takes_value(const std::string& arg) {
  return arg == "--set" || arg == "--out" || arg == "--format" || arg == "--memory-budget" ||
         arg == "--history" || arg == "--resume";
}

// The positions of the matrix arguments (neither an option nor an option's value).
std::vector<std::size_t> positionals(const std::vector<std::string>& args) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (takes_value(args[i])) ++i;
    else if (args[i].empty() || args[i][0] != '-') at.push_back(i);
  return at;
}

}  // namespace

CommonArgs parse_common(const std::vector<std::string>& args, bool allow_run_flags) {
  CommonArgs a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg == "--set") a.sets.push_back(take_value(args, i));
    else if (arg == "--out" && allow_run_flags) a.out_dir = take_value(args, i);
    else if (arg == "--format" && allow_run_flags) a.formats = take_value(args, i);
    else if (arg == "--profile" && allow_run_flags) a.profile = true;
    else if (arg == "--no-profile" && allow_run_flags) a.profile = false;
    else if (arg == "--memory-budget" && allow_run_flags)
      a.memory_budget = capacity::parse_byte_size(take_value(args, i), "--memory-budget");
    else if (arg == "--history" && allow_run_flags) a.history = take_value(args, i);
    else if (arg == "--no-history" && allow_run_flags) a.history.clear();
    else if (arg == "--isolate" && allow_run_flags) a.isolate = true;
    else if (arg == "--no-isolate" && allow_run_flags) a.isolate = false;
    else if (!arg.empty() && arg[0] == '-') throw InputError("command line", arg, "unknown option");
    else if (a.matrix.empty()) a.matrix = arg;
    else throw InputError("command line", arg, "unexpected argument (one matrix file at a time)");
  }
  return a;
}

std::string default_matrix() {
  if (std::filesystem::exists(kDefaultMatrix)) return kDefaultMatrix;
  return std::string(TRAINBENCH_SOURCE_DIR) + "/" + kDefaultMatrix;
}

ResumeArgs take_resume_args(std::vector<std::string>& args) {
  ResumeArgs r;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--resume") r.dir = take_value(args, i);
    else if (args[i] == "--force") r.force = true;
    else rest.push_back(args[i]);
  }
  TB_CHECK_INPUT(!r.force || !r.dir.empty(), "command line", "--force", "only goes with --resume DIR");
  args = std::move(rest);
  return r;
}

std::vector<std::string> resume_arguments(const nlohmann::json& command_line,
                                          const std::vector<std::string>& given) {
  std::vector<std::string> original;
  if (command_line.is_array())
    for (std::size_t i = 2; i < command_line.size(); ++i)  // after "trainbench run"
      if (command_line[i].is_string()) original.push_back(command_line[i].get<std::string>());
  const auto matrix_at = positionals(original);
  const bool matrix_given = !positionals(given).empty();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < original.size(); ++i) {
    if (original[i] == "--out" || original[i] == "--resume") ++i;
    else if (original[i] == "--force") continue;
    else if (matrix_given && std::find(matrix_at.begin(), matrix_at.end(), i) != matrix_at.end()) continue;
    else if (takes_value(original[i]) && i + 1 < original.size()) {
      out.insert(out.end(), {original[i], original[i + 1]});
      ++i;
    } else {
      out.push_back(original[i]);
    }
  }
  out.insert(out.end(), given.begin(), given.end());
  return out;
}

}  // namespace tb
