#include "harness/torch/run_command.hpp"

#include <filesystem>

#include "harness/capacity/byte_size.hpp"
#include "harness/core/durable_file.hpp"
#include "harness/core/error.hpp"
#include "harness/core/isolation_settings.hpp"
#include "harness/core/matrix.hpp"
#include "harness/core/matrix_listing.hpp"
#include "harness/torch/capacity_search.hpp"
#include "harness/torch/registry.hpp"
#include "harness/torch/runner.hpp"
#include "reporters/reporter.hpp"
#include "trainbench/build_config.hpp"

namespace tb {

namespace {

constexpr const char* kDefaultMatrix = "scenarios/quick.json";

struct CommonArgs {
  std::string matrix;
  std::string out_dir;
  std::string formats = "md,csv,html,gbench";
  std::vector<std::string> sets;
  std::optional<bool> profile;
  std::int64_t memory_budget = 0;
  std::string history = "results/history.sqlite";
  std::optional<bool> isolate;  // --isolate / --no-isolate; else the matrix's "isolate"
};

std::string take_value(const std::vector<std::string>& args, std::size_t& i) {
  TB_CHECK_INPUT(i + 1 < args.size(), "command line", args[i], "needs a value");
  return args[++i];
}

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

}  // namespace

int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CommonArgs a;
  MatrixSpec spec;
  RunOptions options;
  try {
    a = parse_common(args, true);
    if (a.matrix.empty()) a.matrix = default_matrix();
    auto loaded = load_matrix_with_isolation(a.matrix, default_parse_options(), a.sets);
    spec = std::move(loaded.spec);
    options.formats = a.formats == "none" ? std::vector<std::string>{} : parse_report_formats(a.formats);
    options.isolate = a.isolate.value_or(loaded.isolation.isolate);
    options.set_overrides = a.sets;
    // Without --isolate a planted crash takes this process down, as a real one would.
    if (loaded.isolation.test_crash) options.test_hook = make_test_crash_hook(*loaded.isolation.test_crash);
    TB_CHECK_INPUT(!(options.isolate && spec.batch_search), a.matrix, "axes.batch",
                   "\"max\" (a capacity search) cannot run with --isolate; give the batch");
  } catch (const InputError& e) {
    err << "trainbench run: " << e.what() << "\n";
    return kExitBadInput;
  }
  options.out_dir = a.out_dir;
  options.progress = &out;
  options.profile = a.profile;
  options.memory_budget_bytes = a.memory_budget;
  options.history_db = a.history;
  options.command_line = {"trainbench", "run"};
  options.command_line.insert(options.command_line.end(), args.begin(), args.end());
  options.run_id = make_run_id(spec);
  if (options.out_dir.empty()) options.out_dir = "results/" + options.run_id;
  ensure_writable_dir(options.out_dir);  // OutputError (exit 5) now, not after the first scenario
  const RunResult run = run_matrix(spec, options);
  // A run in which something broke is not a success, whatever was measured beside it.
  for (const auto& s : run.scenarios)
    if (s.status == ScenarioStatus::failed || s.status == ScenarioStatus::oom ||
        s.status == ScenarioStatus::diverged || s.status == ScenarioStatus::crashed)
      return kExitScenarioFailed;
  return kExitOk;
}

int cmd_list(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    const auto a = parse_common(args, false);
    TB_CHECK_INPUT(!a.matrix.empty(), "command line", "MATRIX", "trainbench list needs a matrix file");
    const auto spec = load_matrix(a.matrix, default_parse_options(), a.sets);
    out << format_scenario_list(spec, expand(spec));
    return kExitOk;
  } catch (const InputError& e) {
    err << "trainbench list: " << e.what() << "\n";
    return kExitBadInput;
  }
}

int cmd_capacity(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CommonArgs a;
  MatrixSpec spec;
  try {
    a = parse_common(args, true);
    TB_CHECK_INPUT(!a.matrix.empty(), "command line", "MATRIX", "trainbench capacity needs a matrix file");
    TB_CHECK_INPUT(!a.isolate, "command line", a.isolate && *a.isolate ? "--isolate" : "--no-isolate",
                   "applies to trainbench run only");
    spec = load_matrix(a.matrix, default_parse_options(), a.sets);
  } catch (const InputError& e) {
    err << "trainbench capacity: " << e.what() << "\n";
    return kExitBadInput;
  }
  RunOptions options;
  options.run_id = make_run_id(spec) + "-capacity";
  options.out_dir = a.out_dir.empty() ? "results/" + options.run_id : a.out_dir;
  ensure_writable_dir(options.out_dir);
  options.progress = &out;
  options.memory_budget_bytes = a.memory_budget;
  options.profile = false;
  options.formats = {"md", "html"};
  options.history_db = "";
  options.command_line = {"trainbench", "capacity"};
  options.command_line.insert(options.command_line.end(), args.begin(), args.end());
  run_capacity(spec, options);
  return kExitOk;
}

int cmd_models(const std::vector<std::string>&, std::ostream& out, std::ostream&) {
  const auto& reg = Registry::instance();
  const auto print_options = [&](const char* section, const std::vector<OptionSpec>& options) {
    if (options.empty()) out << "      (no " << section << ")\n";
    for (const auto& o : options) out << "      " << section << "." << describe_option(o) << "\n";
  };
  out << "models:\n";
  for (const auto& name : reg.model_names()) {
    const auto& m = reg.model(name);
    out << "  " << name << "  (default dataset: " << m.default_dataset << ")  " << m.description << "\n";
    print_options("model_options", m.options);
  }
  out << "datasets:\n";
  for (const auto& name : reg.dataset_names()) {
    const auto& d = reg.dataset(name);
    out << "  " << name << "  " << d.description << "\n";
    print_options("dataset_options", d.options);
  }
  return kExitOk;
}

}  // namespace tb
