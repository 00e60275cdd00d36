// `trainbench capacity MATRIX`: the largest and the fastest batch per model and precision.
#include <trainbench/cli/torch/run_command.hpp>

#include <cstdint>
#include <string>

#include <trainbench/capacity/byte_size.hpp>
#include <trainbench/capacity/torch/capacity_search.hpp>
#include <trainbench/cli/console_progress.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/progress_options.hpp>
#include <trainbench/cli/torch/matrix_options.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/run_folder_lock.hpp>
#include <trainbench/runner/run_id.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

int capacity(const ParsedArgs& p, std::ostream& out, std::ostream&) {
  TB_CHECK_INPUT(!p.positionals().empty(), "command line", "MATRIX", "trainbench capacity needs a matrix file");
  // The command line first (as run reads it), then the matrix.
  const std::string matrix = p.positional(0);
  const std::string out_dir = p.value_or("--out", "");
  const auto progress = progress_detail(p);
  std::int64_t memory_budget = 0;
  if (const auto size = p.value("--memory-budget")) memory_budget = capacity::parse_byte_size(*size, "--memory-budget");
  const MatrixSpec spec = load_matrix(matrix, default_parse_options(), p.values("--set"));
  for (const ScenarioParams& s : expand(spec))
    TB_CHECK_INPUT(s.loop == LoopKind::cpp, matrix, "loop",
                   "trainbench capacity probes trainbench's C++ loop; " + scenario_id(s) +
                       " is a Python loop (docs/python-loop.md): run it with its batch sizes instead");
  RunOptions options;
  options.run_id = make_run_id(spec) + "-capacity";
  options.out_dir = out_dir.empty() ? "results/" + options.run_id : out_dir;
  ensure_writable_dir(options.out_dir);
  const RunFolderLock folder_lock(options.out_dir, "trainbench capacity " + matrix);
  ConsoleProgress console(out, progress.value_or(Detail::normal));
  options.listener = progress ? &console : nullptr;
  options.memory_budget_bytes = memory_budget;
  options.profile = false;
  options.formats = {"md", "html"};
  options.history_db = "";
  options.command_line = {"trainbench", "capacity"};
  for (auto& token : p.tokens_without({})) options.command_line.push_back(std::move(token));
  install_interrupt_handlers();  // Ctrl-C keeps the searches already finished
  run_capacity(spec, options);
  if (interrupted()) {
    out << "trainbench capacity: interrupted; the searches finished before it are in " << options.out_dir << "\n";
    return interrupt_exit_code();
  }
  return as_int(ExitCode::ok);
}

}  // namespace

const Command& capacity_command() {
  static const Command command{
      {.name = "capacity",
       .summary = "largest and fastest batch per model and precision",
       .synopses = {"MATRIX [--memory-budget SIZE] [--out DIR] [--set PATH=JSON]... [--quiet | --verbose]"},
       .description = "Searches the largest batch that fits and the fastest one, per model and precision;\n"
                      "writes a capacity report (md, html) to DIR.\n",
       .positionals = {kMatrixPositional},
       .options = {kMemoryBudgetOption, kOutOption, kSetOption, kQuietOption, kVerboseOption},
       .epilogue = "exit codes: 0 ok, 2 bad input, 5 an output could not be written; 130/143/129 interrupted\n"
                   "by SIGINT/SIGTERM/SIGHUP (the searches finished before it are saved)\n"},
      capacity};
  return command;
}

}  // namespace tb::cli
