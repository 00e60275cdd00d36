// A trainbench sub-command: its option table and what it does with what was parsed.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <trainbench/cli/arg_parser.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

struct Command {
  CommandSpec spec;
  std::function<int(const ParsedArgs&, std::ostream& out, std::ostream& err)> run;
  // Told of a bad command line too, besides the message on `err` (the worker answers its parent
  // on stdout, the only stream the parent reads).
  std::function<void(const InputError&, std::ostream& out)> on_bad_input = nullptr;
};

// What every command does with its command line: parse it against the spec; -h/--help prints
// the usage (exit 0); a bad command line, or an InputError from the command, is
// "trainbench NAME: <file>: <field>: <why>" on `err` (exit 2). OutputError passes through: main
// names the file and exits 5.
int execute_command(const Command& command, const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tb::cli
