// trainbench report RESULTS.json|DIR [--format md,csv,html,gbench,console] [--out DIR]
// Renders an existing results file; "console" prints to stdout, every other format becomes a
// file in --out (default: the directory holding results.json).
#include <filesystem>
#include <stdexcept>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

int report(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  TB_CHECK_INPUT(!args.positionals().empty(), "command line", "RESULTS", "missing results file or directory");
  const std::string results = args.positionals()[0];
  std::string format_list;
  for (const auto& list : args.values("--format")) {
    TB_CHECK_INPUT(!list.empty(), "command line", "--format", "empty format list");
    format_list += (format_list.empty() ? "" : ",") + list;
  }
  const std::string out_option = args.value_or("--out", "");
  TB_CHECK_INPUT(!args.has("--out") || !out_option.empty(), "command line", "--out", "empty directory");
  try {
    const auto formats = format_list.empty() ? default_report_formats() : parse_report_formats(format_list);
    const RunResult run = load_results(results);
    const fs::path results_dir = fs::is_directory(results) ? fs::path(results) : fs::path(results).parent_path();
    const std::string results_dir_str = results_dir.empty() ? "." : results_dir.string();
    const std::string out_dir = out_option.empty() ? results_dir_str : out_option;

    std::vector<std::string> file_formats;
    for (const auto& f : formats) {
      if (f != "console") {
        file_formats.push_back(f);
        continue;
      }
      ReportContext ctx;
      ctx.out = &out;
      ctx.results_dir = results_dir_str;
      ctx.report_dir = results_dir_str;
      make_reporter(f)->render(run, ctx);
    }
    for (const auto& path : write_reports(run, out_dir, file_formats, results_dir_str))
      out << "wrote " << path << '\n';
    return as_int(ExitCode::ok);
  } catch (const OutputError&) {
    throw;  // main says which file and exits 5
  } catch (const InputError&) {
    throw;  // execute_command: exit 2
  } catch (const std::exception& e) {
    err << "trainbench report: " << e.what() << '\n';
    return as_int(ExitCode::failure);  // rendering failed
  }
}

}  // namespace

const Command& report_command() {
  static const Command command{
      {.name = "report",
       .summary = "re-render reports from a saved results.json",
       .synopses = {"RESULTS [--format LIST] [--out DIR]"},
       .description = "Renders the reports of an existing run. \"console\" prints to stdout; every other\n"
                      "format becomes a file in --out.\n",
       .positionals = {{"RESULTS", "a results.json file or the directory holding it"}},
       .options = {{"--format", "LIST", "md,csv,html,gbench,console (default md,csv,html,gbench)", true},
                   {"--out", "DIR", "where the report files go (default: the folder of results.json)"}},
       .epilogue = "exit codes: 0 ok, 1 rendering failed, 2 bad input, 5 a report could not be written\n"},
      report};
  return command;
}

int cmd_report(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(report_command(), args, out, err);
}

}  // namespace tb::cli
