// trainbench diff-trace: what changed down to the operators between two traces of a step.
#include <string>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/profiling/trace_diff.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

std::size_t parse_top(const std::string& text) {
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) { used = 0; }
  TB_CHECK_INPUT(used == text.size() && n > 0, "command line", "--top", "expected a positive integer, got '", text,
                 "'");
  return static_cast<std::size_t>(n);
}

int diff_trace(const ParsedArgs& args, std::ostream& out, std::ostream&) {
  TB_CHECK_INPUT(args.positionals().size() == 2, "command line", "", "expected two traces, OLD and NEW; see --help");
  const std::size_t top = parse_top(args.value_or("--top", "10"));
  const auto diff = profiling::diff_traces(profiling::read_trace_profile(args.positional(0)),
                                           profiling::read_trace_profile(args.positional(1)));
  if (args.has("--json")) out << profiling::trace_diff_json(diff, top).dump(2) << '\n';
  else profiling::print_trace_diff(diff, top, out);
  return as_int(ExitCode::ok);
}

}  // namespace

const Command& diff_trace_command() {
  static const Command command{
      {.name = "diff-trace",
       .summary = "what changed down to the operators between two Kineto/Chrome traces",
       .synopses = {"OLD.json NEW.json [--top N] [--json]"},
       .description = "Reads two traces of the same training step (traces/<scenario>.pt.trace.json from runs with\n"
                      "profile.kineto, or any Chrome trace with operator events; .json.gz too) and reports, per phase\n"
                      "(the record-function range an operator falls in: data_wait, h2d, forward, backward,\n"
                      "optimizer, comm), operators and GPU kernels added and removed, and the largest changes in\n"
                      "calls and self time (duration minus children on the same thread), per profiled step.\n",
       .positionals = {{"OLD", "trace file"}, {"NEW", "trace file"}},
       .options = {{"--top", "N", "entries shown per list and phase (default 10)"},
                   {"--json", "", "print the diff as JSON"}},
       .epilogue = "exit codes:\n"
                   "  0  diff printed\n"
                   "  2  usage error, or a trace that is missing or malformed (the message names the file)\n"},
      diff_trace};
  return command;
}

int cmd_diff_trace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(diff_trace_command(), args, out, err);
}

}  // namespace tb::cli
