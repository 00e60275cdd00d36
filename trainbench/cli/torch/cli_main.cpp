// tb::cli::main: dispatches to the sub-commands; the top-level help is built from their option
// tables. The trainbench binary is one call to it, and so is a user's own executable.
#include <trainbench/cli/torch/cli_main.hpp>

#include <iostream>
#include <string>
#include <vector>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/torch/run_command.hpp>
#include <trainbench/cli/torch/version.hpp>
#include <trainbench/cli/torch/worker_command.hpp>
#include <trainbench/support/error.hpp>

namespace {

using tb::cli::Command;

const std::vector<const Command*>& all_commands() {
  static const std::vector<const Command*> commands = {
      &tb::cli::run_command(),      &tb::cli::list_command(),    &tb::cli::report_command(),
      &tb::cli::compare_command(),  &tb::cli::merge_command(),   &tb::cli::ab_command(),
      &tb::cli::bisect_command(),   &tb::cli::history_command(), &tb::cli::diff_trace_command(),
      &tb::cli::capacity_command(), &tb::cli::models_command(),  &tb::cli::worker_command()};
  return commands;
}

// Each command's usage lines and summary, from its own table.
std::string top_level_usage() {
  std::string text = "usage: trainbench <command> [options]\n       trainbench --version\n\ncommands:\n";
  for (const Command* c : all_commands()) {
    if (c->spec.hidden) continue;
    for (const auto& synopsis : c->spec.synopses.empty() ? std::vector<std::string>{""} : c->spec.synopses)
      text += "  " + c->spec.name + (synopsis.empty() ? "" : " " + synopsis) + "\n";
    std::string summary = c->spec.summary;
    for (std::size_t at = 0; (at = summary.find('\n', at)) != std::string::npos; at += 7)
      summary.replace(at, 1, "\n      ");
    text += "      " + summary + "\n";
  }
  return text +
         "\n`trainbench <command> --help` describes a command and its options.\n"
         "\n" +
         tb::cli::kExitCodesHelp;
}

}  // namespace

int tb::cli::main(int argc, char** argv) {
  using tb::cli::as_int;
  using tb::cli::ExitCode;
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    std::cout << top_level_usage();
    return as_int(all.empty() ? ExitCode::bad_input : ExitCode::ok);
  }
  if (all[0] == "--version") {
    std::cout << tb::cli::version_text();
    return as_int(ExitCode::ok);
  }
  const std::string name = all[0];
  const std::vector<std::string> args(all.begin() + 1, all.end());
  for (const Command* command : all_commands()) {
    if (command->spec.name != name) continue;
    try {
      return tb::cli::execute_command(*command, args, std::cout, std::cerr);
    } catch (const tb::OutputError& e) {
      std::cerr << "trainbench: " << e.what() << "\n";  // "cannot write <path>: <reason>"
      return as_int(ExitCode::output_error);
    } catch (const std::exception& e) {
      std::cerr << "trainbench " << name << ": " << e.what() << "\n";
      return as_int(ExitCode::bad_input);
    }
  }
  std::cerr << "trainbench: unknown command '" << name << "'\n" << top_level_usage();
  return as_int(ExitCode::bad_input);
}
