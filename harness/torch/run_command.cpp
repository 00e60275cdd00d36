#include "harness/torch/run_command.hpp"

#include <algorithm>
#include <filesystem>

#include "harness/core/durable_file.hpp"
#include "harness/core/error.hpp"
#include "harness/core/interrupt.hpp"
#include "harness/core/isolation_settings.hpp"
#include "harness/core/matrix.hpp"
#include "harness/core/matrix_listing.hpp"
#include "harness/core/resume_check.hpp"
#include "harness/core/run_args.hpp"
#include "harness/torch/capacity_search.hpp"
#include "harness/torch/environment.hpp"
#include "harness/torch/registry.hpp"
#include "harness/torch/runner.hpp"
#include "reporters/reporter.hpp"

namespace tb {

namespace {

// After the run: 130/143 when a signal stopped it (with how to finish it), 1 when a scenario
// broke, else 0.
int run_exit_code(const RunResult& run, const std::string& out_dir, std::ostream& err) {
  if (interrupted()) {
    err << "trainbench: interrupted; finish with: trainbench run --resume " << out_dir << "\n";
    return interrupt_exit_code();
  }
  // A run in which something broke is not a success, whatever was measured beside it.
  for (const auto& s : run.scenarios)
    if (needs_rerun(s)) return kExitScenarioFailed;
  return kExitOk;
}

// Reads the matrix with its run settings (isolation, a planted crash) and the report formats.
// InputError for anything wrong, before anything runs.
void load_for_run(const CommonArgs& a, MatrixSpec& spec, RunOptions& options) {
  auto loaded = load_matrix_with_isolation(a.matrix, default_parse_options(), a.sets);
  spec = std::move(loaded.spec);
  options.formats = a.formats == "none" ? std::vector<std::string>{} : parse_report_formats(a.formats);
  options.isolate = a.isolate.value_or(loaded.isolation.isolate);
  options.set_overrides = a.sets;
  // Without --isolate a planted crash takes this process down, as a real one would.
  if (loaded.isolation.test_crash) options.test_hook = make_test_crash_hook(*loaded.isolation.test_crash);
  TB_CHECK_INPUT(!(options.isolate && spec.batch_search), a.matrix, "axes.batch",
                 "\"max\" (a capacity search) cannot run with --isolate; give the batch");
}

int resume_run(std::vector<std::string> args, const ResumeArgs& resume, std::ostream& out,
               std::ostream& err) {
  RunResult previous;
  MatrixSpec spec;
  CommonArgs a;
  RunOptions options;
  const std::string results_path = (std::filesystem::path(resume.dir) / "results.json").string();
  try {
    TB_CHECK_INPUT(std::filesystem::exists(results_path), "command line", "--resume",
                   resume.dir, " holds no results.json: nothing to resume");
    previous = load_results(results_path);
    a = parse_common(
        resume_arguments(previous.environment.value("command_line", nlohmann::json::array()), args),
        true);
    TB_CHECK_INPUT(a.out_dir.empty(), "command line", "--out", "not with --resume: the results stay in ",
                   resume.dir);
    if (a.matrix.empty()) a.matrix = previous.matrix_file;
    TB_CHECK_INPUT(!a.matrix.empty(), results_path, "matrix.file",
                   "empty; name the matrix: trainbench run MATRIX --resume ", resume.dir);
    load_for_run(a, spec, options);
  } catch (const InputError& e) {
    err << "trainbench run: " << e.what() << "\n";
    return kExitBadInput;
  }
  const auto environment = capture_environment({}, spec.defaults.seed);
  const auto refusals =
      resume_refusals(previous, scenarios_digest(scenarios_as_run(spec, previous)), environment);
  for (const auto& why : refusals) {
    if (resume.force) out << "trainbench: warning: resuming anyway (--force): " << why << "\n";
    else err << "trainbench run: cannot resume: " << results_path << ": " << why << "\n";
  }
  if (!refusals.empty() && !resume.force) {
    err << "trainbench run: pass --force to resume anyway\n";
    return kExitBadInput;
  }
  if (std::none_of(previous.scenarios.begin(), previous.scenarios.end(),
                   [](const ScenarioResult& s) { return needs_rerun(s); }) &&
      previous.scenarios.size() == expand(spec).size()) {
    out << "trainbench: nothing to resume in " << resume.dir << ": every scenario is ok or skipped\n";
    return kExitOk;
  }
  options.out_dir = resume.dir;
  options.run_id = previous.run_id;
  options.progress = &out;
  options.profile = a.profile;
  options.memory_budget_bytes = a.memory_budget;
  options.history_db = a.history;
  ensure_writable_dir(options.out_dir);
  install_interrupt_handlers();
  const RunResult run = resume_matrix(
      spec, std::move(previous), options,
      ResumeRecord{environment.value("started_at", std::string()), refusals});
  return run_exit_code(run, options.out_dir, err);
}

}  // namespace

int cmd_run(const std::vector<std::string>& args_in, std::ostream& out, std::ostream& err) {
  CommonArgs a;
  MatrixSpec spec;
  RunOptions options;
  std::vector<std::string> args = args_in;
  ResumeArgs resume;
  try {
    resume = take_resume_args(args);
    if (resume.dir.empty()) {
      a = parse_common(args, true);
      if (a.matrix.empty()) a.matrix = default_matrix();
      load_for_run(a, spec, options);
    }
  } catch (const InputError& e) {
    err << "trainbench run: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!resume.dir.empty()) return resume_run(args, resume, out, err);
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
  install_interrupt_handlers();           // Ctrl-C from here on saves what was measured
  const RunResult run = run_matrix(spec, options);
  return run_exit_code(run, options.out_dir, err);
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
