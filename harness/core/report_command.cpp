// trainbench report RESULTS.json|DIR [--format md,csv,html,gbench,console] [--out DIR]
// Renders an existing results file; "console" prints to stdout, every other format becomes a
// file in --out (default: the directory holding results.json).
#include <filesystem>
#include <stdexcept>

#include "harness/core/commands.hpp"
#include "harness/core/error.hpp"
#include "harness/core/results.hpp"
#include "reporters/reporter.hpp"

namespace tb {

namespace {

constexpr const char* kUsage =
    "usage: trainbench report RESULTS.json|DIR [--format md,csv,html,gbench,console] [--out DIR]\n"
    "exit codes: 0 ok, 1 rendering failed, 2 bad input, 5 a report could not be written\n";

struct ReportArgs {
  std::string results;
  std::vector<std::string> formats;
  std::string out_dir;
};

// Accepts "--flag value" and "--flag=value".
ReportArgs parse_args(const std::vector<std::string>& args) {
  ReportArgs parsed;
  std::string format_list;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&](const char* flag) {
      if (has_value) return value;
      TB_CHECK_INPUT(i + 1 < args.size(), flag, "", "missing value");
      return args[++i];
    };
    if (arg == "--format") {
      const std::string list = next("--format");
      format_list += (format_list.empty() ? "" : ",") + list;
      TB_CHECK_INPUT(!list.empty(), "--format", "", "empty format list");
    } else if (arg == "--out") {
      parsed.out_dir = next("--out");
      TB_CHECK_INPUT(!parsed.out_dir.empty(), "--out", "", "empty directory");
    } else if (arg.rfind("--", 0) == 0) {
      throw InputError(arg, "", "unknown option");
    } else {
      TB_CHECK_INPUT(parsed.results.empty(), arg, "", "only one results file is accepted (already have '",
                     parsed.results, "')");
      parsed.results = arg;
    }
  }
  TB_CHECK_INPUT(!parsed.results.empty(), "RESULTS", "", "missing results file or directory");
  parsed.formats = format_list.empty() ? default_report_formats() : parse_report_formats(format_list);
  return parsed;
}

}  // namespace

int cmd_report(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  for (const auto& a : args)
    if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    }
  try {
    const ReportArgs parsed = parse_args(args);
    const RunResult run = load_results(parsed.results);
    const fs::path results_dir = fs::is_directory(parsed.results)
                                     ? fs::path(parsed.results)
                                     : fs::path(parsed.results).parent_path();
    const std::string results_dir_str = results_dir.empty() ? "." : results_dir.string();
    const std::string out_dir = parsed.out_dir.empty() ? results_dir_str : parsed.out_dir;

    std::vector<std::string> file_formats;
    for (const auto& f : parsed.formats) {
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
    return 0;
  } catch (const OutputError&) {
    throw;  // main says which file and exits kExitOutputError
  } catch (const InputError& e) {
    err << "trainbench report: " << e.what() << '\n' << kUsage;
    return 2;
  } catch (const std::exception& e) {
    err << "trainbench report: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace tb
