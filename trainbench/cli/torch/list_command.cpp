// `trainbench list MATRIX`: the expanded scenarios, without running them.
#include <trainbench/cli/torch/run_command.hpp>

#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/torch/matrix_options.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/matrix_listing.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

int list(const ParsedArgs& p, std::ostream& out, std::ostream&) {
  TB_CHECK_INPUT(!p.positionals().empty(), "command line", "MATRIX", "trainbench list needs a matrix file");
  const auto spec = load_matrix(p.positionals()[0], default_parse_options(), p.values("--set"));
  out << format_scenario_list(spec, expand(spec));
  return as_int(ExitCode::ok);
}

}  // namespace

const Command& list_command() {
  static const Command command{{.name = "list",
                                .summary = "print the expanded scenarios without running them",
                                .synopses = {"MATRIX [--set PATH=JSON]..."},
                                .positionals = {kMatrixPositional},
                                .options = {kSetOption},
                                .epilogue = "exit codes: 0 ok, 2 bad input\n"},
                               list};
  return command;
}

}  // namespace tb::cli
