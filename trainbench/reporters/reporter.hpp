// Reporters render a RunResult (results.json) for people and tools. Design follows
// google/benchmark's BenchmarkReporter and nvbench's printers: a small interface, one class per
// output format.
// Reporters only read the run: statistics (comparisons, loss parity, summaries) come from the
// "extra" sections written by other components; a missing section renders as "-".
#pragma once
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <trainbench/results/results.hpp>

namespace tb {

struct ReportContext {
  std::ostream* out = nullptr;  // where the report goes (required)
  // Directory holding results.json; trace paths in extra.profile.traces are relative to it.
  std::string results_dir;
  // Directory the report file is written to; trace links are made relative to it. When both are
  // empty (or equal) trace paths are used as written.
  std::string report_dir;
};

class Reporter {
 public:
  virtual ~Reporter() = default;

  // Non-virtual interface: checks the context once for every format.
  void render(const RunResult& run, const ReportContext& ctx);

  // Format name as given to --format ("md", "csv", ...).
  virtual std::string name() const = 0;
  // File name used by write_reports, e.g. "report.md".
  virtual std::string default_file_name() const = 0;

 private:
  virtual void do_render(const RunResult& run, const ReportContext& ctx) = 0;
};

// A reporter by format name ("console", "md" or "markdown", "csv", "html", "gbench": the table in
// reporter.cpp); InputError("--format", ...) for anything else.
std::unique_ptr<Reporter> make_reporter(const std::string& format);

// Formats accepted by make_reporter, in display order.
const std::vector<std::string>& known_report_formats();

// The file formats written next to results.json: md, csv, html, gbench.
const std::vector<std::string>& default_report_formats();

// Splits "md,csv" (and repeated values) into formats, validating each; InputError("--format").
std::vector<std::string> parse_report_formats(const std::string& list);

// Writes one file per format into `dir` (created if needed): report.md, results.csv,
// report.html, gbench.json (console: report.txt). `results_dir` locates trace files for links
// (defaults to `dir`). Returns the paths written, in the order of `formats`. Each file is
// replaced durably; OutputError at the first that cannot be written.
std::vector<std::string> write_reports(const RunResult& run, const std::string& dir,
                                       const std::vector<std::string>& formats, const std::string& results_dir = "");

}  // namespace tb
