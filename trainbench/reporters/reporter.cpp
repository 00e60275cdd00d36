#include <trainbench/reporters/reporter.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/reporters/bencher_reporter.hpp>
#include <trainbench/reporters/capacity_comparisons.hpp>
#include <trainbench/reporters/console_reporter.hpp>
#include <trainbench/reporters/csv_reporter.hpp>
#include <trainbench/reporters/gbench_reporter.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include <trainbench/reporters/markdown_reporter.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

void Reporter::render(const RunResult& run, const ReportContext& ctx) {
  if (ctx.out == nullptr) throw std::invalid_argument(name() + " reporter: no output stream");
  if (report::is_capacity_run(run)) {
    do_render(report::without_speedups(run), ctx);
  } else if (compared_across_workloads(run)) {
    // Written before speed-ups were per workload: each workload against its own baseline now.
    RunResult rebased = run;
    compare_within_workloads(rebased);
    do_render(rebased, ctx);
  } else {
    do_render(run, ctx);
  }
  ctx.out->flush();
}

namespace {

// Every output format, keyed by name (kineto's small registry of loggers): a new reporter is
// its own file plus one row here. `file_by_default`: written next to results.json when no
// --format is given.
struct ReportFormat {
  const char* name;
  const char* alias;  // another accepted spelling, or nullptr
  bool file_by_default;
  std::unique_ptr<Reporter> (*make)();
};

template <class R>
std::unique_ptr<Reporter> make_one() {
  return std::make_unique<R>();
}

constexpr ReportFormat kFormats[] = {
    {"console", nullptr, false, make_one<ConsoleReporter>}, {"md", "markdown", true, make_one<MarkdownReporter>},
    {"csv", nullptr, true, make_one<CsvReporter>},          {"html", nullptr, true, make_one<HtmlReporter>},
    {"gbench", nullptr, true, make_one<GbenchReporter>},    {"bencher", nullptr, false, make_one<BencherReporter>},
};

}  // namespace

const std::vector<std::string>& known_report_formats() {
  static const std::vector<std::string> formats = [] {
    std::vector<std::string> names;
    for (const auto& f : kFormats) names.emplace_back(f.name);
    return names;
  }();
  return formats;
}

const std::vector<std::string>& default_report_formats() {
  static const std::vector<std::string> formats = [] {
    std::vector<std::string> names;
    for (const auto& f : kFormats)
      if (f.file_by_default) names.emplace_back(f.name);
    return names;
  }();
  return formats;
}

std::unique_ptr<Reporter> make_reporter(const std::string& format) {
  for (const auto& f : kFormats)
    if (format == f.name || (f.alias != nullptr && format == f.alias)) return f.make();
  std::string known;
  for (const auto& f : known_report_formats()) known += (known.empty() ? "" : ", ") + f;
  throw InputError("--format", "", "unknown report format '" + format + "' (known: " + known + ")");
}

std::vector<std::string> parse_report_formats(const std::string& list) {
  std::vector<std::string> formats;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string f = list.substr(start, comma - start);
    TB_CHECK_INPUT(!f.empty(), "--format", "", "empty format in '", list, "'");
    make_reporter(f);  // validates the name
    if (std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
    start = comma + 1;
  }
  return formats;
}

std::vector<std::string> write_reports(const RunResult& run, const std::string& dir,
                                       const std::vector<std::string>& formats, const std::string& results_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> written;
  for (const auto& format : formats) {
    auto reporter = make_reporter(format);
    const std::string path = (fs::path(dir) / reporter->default_file_name()).string();
    // Rendered in memory, then replaced durably: a failed write keeps the previous report.
    std::ostringstream text;
    ReportContext ctx;
    ctx.out = &text;
    ctx.results_dir = results_dir.empty() ? dir : results_dir;
    ctx.report_dir = dir;
    reporter->render(run, ctx);
    write_file_durably(path, text.str());
    written.push_back(path);
  }
  return written;
}

}  // namespace tb
