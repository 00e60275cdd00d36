#include <trainbench/cli/command.hpp>

#include <trainbench/cli/exit_code.hpp>

namespace tb::cli {

int execute_command(const Command& command, const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  try {
    const ParsedArgs parsed = parse_arguments(command.spec, args);
    if (parsed.help()) {
      out << format_usage(command.spec);
      return as_int(ExitCode::ok);
    }
    return command.run(parsed, out, err);
  } catch (const InputError& e) {
    err << "trainbench " << command.spec.name << ": " << e.what() << "\n";
    if (command.on_bad_input) command.on_bad_input(e, out);
    return as_int(ExitCode::bad_input);
  }
}

}  // namespace tb::cli
