// trainbench report RESULTS.json|DIR [--format md,csv,html,gbench,bencher,console] [--out DIR | --bundle DIR]
// Renders an existing results file; "console" prints to stdout, every other format becomes a
// file in --out (default: the directory holding results.json).
#include <filesystem>
#include <stdexcept>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/report_bundle.hpp>
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
  const std::string bundle = args.value_or("--bundle", "");
  TB_CHECK_INPUT(!args.has("--bundle") || !bundle.empty(), "command line", "--bundle", "empty directory");
  TB_CHECK_INPUT(bundle.empty() || out_option.empty(), "command line", "--bundle",
                 "--bundle writes its reports into the bundle; leave out --out");
  try {
    const auto formats = format_list.empty() ? default_report_formats() : parse_report_formats(format_list);
    const RunResult run = load_results(results);
    const fs::path results_dir = fs::is_directory(results) ? fs::path(results) : fs::path(results).parent_path();
    std::string results_dir_str = results_dir.empty() ? "." : results_dir.string();
    if (!bundle.empty()) {
      // The bundle becomes the results folder: its reports link the copied traces relative to it.
      for (const auto& path : bundle_run(run, results_dir_str, bundle))
        err << "trainbench report: trace " << path << " is missing; the bundle's reports say so\n";
      results_dir_str = bundle;
    }
    const std::string out_dir = !bundle.empty() ? bundle : out_option.empty() ? results_dir_str : out_option;

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
    for (const auto& path : write_reports(run, out_dir, file_formats, results_dir_str)) out << "wrote " << path << '\n';
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
       .synopses = {"RESULTS [--format LIST] [--out DIR]", "RESULTS --bundle DIR [--format LIST]"},
       .description = "Renders the reports of an existing run. \"console\" prints to stdout; every other\n"
                      "format becomes a file in --out. With --bundle, DIR becomes one self-contained folder\n"
                      "(results.json, the traces it names, the reports linking them relative to DIR) to attach\n"
                      "to a CI run or archive.\n",
       .positionals = {{"RESULTS", "a results.json file or the directory holding it"}},
       .options = {{"--format", "LIST", "md,csv,html,gbench,bencher,console (default md,csv,html,gbench)", true},
                   {"--out", "DIR", "where the report files go (default: the folder of results.json)"},
                   {"--bundle", "DIR", "copy results.json and its traces into DIR and write the reports there"}},
       .epilogue = "exit codes: 0 ok, 1 rendering failed, 2 bad input, 5 a report could not be written\n"},
      report};
  return command;
}

int cmd_report(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(report_command(), args, out, err);
}

}  // namespace tb::cli
