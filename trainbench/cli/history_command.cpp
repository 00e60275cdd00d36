// trainbench history: recorded runs, one scenario's trend with an ASCII sparkline, or an HTML
// page with a trend chart per scenario.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/history_changes.hpp>
#include <trainbench/cli/history_option.hpp>
#include <trainbench/cli/option_values.hpp>
#include <trainbench/reporters/history_html.hpp>
#include <trainbench/reporters/history_site.hpp>
#include <trainbench/reporters/html_page.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/results/history.hpp>
#include <trainbench/results/history_store.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/text_table.hpp>

namespace tb::cli {

namespace {

// Lower step time is better, so the sparkline goes up when runs get slower.
std::string sparkline(const std::vector<TrendPoint>& points) {
  static const std::string levels = "_.-:=+*#";
  double lo = 0, hi = 0;
  bool first = true;
  for (const auto& p : points) {
    if (p.status != "ok" || p.median_s <= 0) continue;
    lo = first ? p.median_s : std::min(lo, p.median_s);
    hi = first ? p.median_s : std::max(hi, p.median_s);
    first = false;
  }
  std::string out;
  for (const auto& p : points) {
    if (p.status != "ok" || p.median_s <= 0) {
      out += 'x';
      continue;
    }
    const double t = hi > lo ? (p.median_s - lo) / (hi - lo) : 0.5;
    const auto top = static_cast<double>(levels.size() - 1);
    out += levels[static_cast<std::size_t>(std::min(t * (top + 1), top))];
  }
  return out;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string short_rev(const std::string& rev) { return rev.substr(0, std::min<std::size_t>(10, rev.size())); }

// The columns both listings start with (run id, ISO start time, short git revision), then
// `more_titles`, right-aligned when they are figures. Every column fits its widest cell, so a
// long run id or a slow step (a wider figure) never pushes the columns after it out of line.
TextTable run_table(std::vector<std::string> more_titles, bool figures) {
  TextTable t;
  t.titles = {"run_id", "started_at", "git"};
  t.titles.insert(t.titles.end(), more_titles.begin(), more_titles.end());
  t.right.assign(t.titles.size(), figures);
  t.right[0] = t.right[1] = t.right[2] = false;
  return t;
}

void print_runs(const History& h, int limit, std::ostream& out) {
  const auto runs = h.runs(limit);
  if (runs.empty()) {
    out << "no runs recorded in " << h.path() << '\n';
    return;
  }
  // The code under test's commit, when any listed run recorded one (run --commit, or the
  // matrix's git repository).
  const bool commits = std::any_of(runs.begin(), runs.end(), [](const RunSummary& r) { return !r.commit.empty(); });
  TextTable table = run_table(
      commits ? std::vector<std::string>{"commit", "ok/all", "matrix"} : std::vector<std::string>{"ok/all", "matrix"},
      false);
  for (const auto& r : runs) {
    std::vector<std::string> row = {r.run_id, r.started_at, short_rev(r.git_revision)};
    if (commits) row.push_back(r.commit.empty() ? "-" : short_rev(r.commit));
    row.push_back(std::to_string(r.ok) + "/" + std::to_string(r.scenarios));
    row.push_back(r.matrix);
    table.rows.push_back(std::move(row));
  }
  write_text_table(out, table);
}

void print_trend(const History& h, const std::string& scenario, int limit, std::ostream& out) {
  const auto points = h.trend(scenario, limit);
  TB_CHECK_INPUT(!points.empty(), h.path(), "--scenario", "no recorded results for scenario '", scenario, "'");
  TextTable table = run_table({"median ms", "95% CI ms", "samples/s"}, true);
  for (const auto& p : points) {
    if (p.status != "ok") {  // a note in place of the figures
      table.rows.push_back({p.run_id, p.started_at, short_rev(p.git_revision), p.status});
      continue;
    }
    table.rows.push_back({p.run_id, p.started_at, short_rev(p.git_revision), fmt("%.3f", p.median_s * 1e3),
                          fmt("%.3f", p.ci_low * 1e3) + " .. " + fmt("%.3f", p.ci_high * 1e3),
                          fmt("%.1f", p.samples_per_s)});
  }
  out << "scenario " << scenario << "\n\n";
  write_text_table(out, table, TextLayout{.align_titles = true});
  out << "\nstep time trend (oldest -> newest, higher = slower, x = not ok): " << sparkline(points) << '\n';
}

// Every scenario (of `matrix` when given, or just `scenario`) with its trend, on one page.
void write_trend_page(const History& h, const std::string& file, const std::string& matrix, const std::string& scenario,
                      int limit, std::ostream& out) {
  std::vector<ScenarioTrend> trends;
  const auto ids = scenario.empty() ? h.scenario_ids(matrix) : std::vector<std::string>{scenario};
  for (const auto& id : ids) trends.push_back({id, h.trend(id, limit)});
  TB_CHECK_INPUT(
      !trends.empty() && !trends.front().points.empty(), h.path(), scenario.empty() ? "--matrix" : "--scenario",
      "no recorded results",
      matrix.empty() && scenario.empty() ? std::string() : " for '" + (scenario.empty() ? matrix : scenario) + "'");
  std::ostringstream page;
  render_history_html(page, h.path(), trends, HtmlReporter().chartjs_path());
  write_file_durably(file, page.str());
  out << "wrote " << file << " (" << trends.size() << (trends.size() == 1 ? " scenario)\n" : " scenarios)\n");
}

// A site folder trainbench wrote has this file: only such a folder (or an empty or new one) is
// written into, and its old scenario pages are removed first, so a folder given by mistake
// (`--html .`) never loses a file and a rebuilt site keeps no page of a scenario it no longer has.
constexpr const char* kSiteMarker = ".trainbench-history-site";

bool is_page_path(const std::string& path) {
  const auto ext = std::filesystem::path(path).extension().string();
  return ext == ".html" || ext == ".htm";
}

void write_trend_site(const History& h, const std::string& dir, const std::string& matrix, const std::string& scenario,
                      int limit, std::ostream& out) {
  namespace fs = std::filesystem;
  const fs::path root(dir);
  std::error_code ec;
  if (fs::exists(root, ec)) {
    TB_CHECK_INPUT(fs::is_directory(root, ec), dir, "--html",
                   "exists and is not a folder (a single page needs a name ending in .html)");
    TB_CHECK_INPUT(fs::is_empty(root, ec) || fs::exists(root / kSiteMarker, ec), dir, "--html",
                   "is a folder that trainbench did not write (no ", kSiteMarker,
                   "): choose a new or empty folder, so nothing of yours is overwritten");
  }
  const HistorySite site = build_history_site(h, matrix, scenario, limit);
  // Old pages go only after the new site could be built from the history.
  if (fs::exists(root / "scenarios", ec))
    for (const auto& entry : fs::directory_iterator(root / "scenarios", ec))
      if (entry.path().extension() == ".html") fs::remove(entry.path(), ec);
  write_file_durably((root / kSiteMarker).string(), "written by trainbench history --html; rebuilt in place\n");
  const std::string chartjs = html_page::read_chartjs(HtmlReporter().chartjs_path());
  if (!chartjs.empty()) write_file_durably((root / "assets" / "chart.min.js").string(), chartjs);
  std::ostringstream index;
  render_site_index(index, site);
  write_file_durably((root / "index.html").string(), index.str());
  for (const auto& series : site.series) {
    std::ostringstream page;
    render_site_series(page, site, series, chartjs.empty() ? "" : "../assets/chart.min.js");
    write_file_durably((root / series.page).string(), page.str());
  }
  out << "wrote " << (root / "index.html").string() << " and " << site.series.size()
      << (site.series.size() == 1 ? " scenario page" : " scenario pages") << " under " << (root / "scenarios").string()
      << '\n';
}

int show_history(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  try {
    const std::string db = history_path(args, err);
    const std::string scenario = args.value_or("--scenario", "");
    const std::string record = args.value_or("--record", "");
    const std::string export_to = args.value_or("--export", "");
    const std::string import_from = args.value_or("--import", "");
    const std::string html = args.value_or("--html", "");
    const std::string matrix = args.value_or("--matrix", "");
    const auto positive_int = [&](const char* option, int fallback) {
      const auto v = args.value(option);
      if (!v) return fallback;
      int n = -1;
      try {
        std::size_t used = 0;
        n = std::stoi(*v, &used);
        if (used != v->size()) n = -1;
      } catch (const std::exception&) { n = -1; }
      TB_CHECK_INPUT(n > 0, "command line", option, "expected a positive integer, got '", *v, "'");
      return n;
    };
    const int limit = positive_int("--limit", 0);
    const bool changes = args.has("--changes");
    for (const char* only_with_changes : {"--metric", "--fail-on-change", "--window", "--junit"})
      TB_CHECK_INPUT(changes || !args.has(only_with_changes), "command line", only_with_changes, "needs --changes");
    if (record.empty() && import_from.empty())
      TB_CHECK_INPUT(is_postgresql_url(db) || std::filesystem::exists(db), db, "",
                     "no history database (record runs first)");
    if (!import_from.empty()) {
      std::ifstream in(import_from);
      TB_CHECK_INPUT(in.good(), import_from, "", "cannot read the export file");
      History history(db);
      const std::size_t n = history.import_runs(in, import_from);
      out << "imported " << n << (n == 1 ? " run" : " runs") << " from " << import_from << " into " << db << '\n';
      return as_int(ExitCode::ok);
    }
    History history(db);
    if (!export_to.empty()) {
      std::ostringstream text;
      history.export_runs(text);
      write_file_durably(export_to, text.str());
      out << "exported " << history.runs().size() << " runs of " << db << " to " << export_to << '\n';
    } else if (!record.empty()) {
      const RunResult run = load_results(record);
      history.record(run, record);
      out << "recorded run " << run.run_id << " in " << db << '\n';
    } else if (changes) {
      ChangesRequest request{.matrix = matrix, .scenario = scenario, .limit = limit};
      if (const auto m = args.value("--metric")) {
        const auto metric = trend_metric_from_string(*m);
        TB_CHECK_INPUT(metric.has_value(), "command line", "--metric", "unknown metric '", *m,
                       "' (known: step_time, samples_per_s, peak_memory, paired_ratio)");
        request.metric = *metric;
      }
      if (const auto v = args.value("--fail-on-change")) request.fail_pct = parse_non_negative("--fail-on-change", *v);
      request.window = positive_int("--window", request.window);
      request.junit_path = args.value_or("--junit", "");
      return print_changes(history, request, out);
    } else if (!html.empty()) {
      if (is_page_path(html)) write_trend_page(history, html, matrix, scenario, limit, out);
      else write_trend_site(history, html, matrix, scenario, limit, out);
    } else if (!scenario.empty()) {
      print_trend(history, scenario, limit, out);
    } else {
      print_runs(history, limit, out);
    }
    return as_int(ExitCode::ok);
  } catch (const OutputError&) {
    throw;  // main says which file and exits 5
  } catch (const std::exception& e) {
    err << "trainbench history: " << e.what() << '\n';
    return as_int(ExitCode::bad_input);
  }
}

}  // namespace

const Command& history_command() {
  static const Command command{
      {.name = "history",
       .summary = "runs recorded in the history database, or one scenario's trend",
       .synopses = {"[--history PATH] [--scenario ID] [--limit N]",
                    "[--history PATH] --html DIR|FILE.html [--matrix NAME | --scenario ID] [--limit N]",
                    "[--history PATH] --changes [--matrix NAME | --scenario ID] [--metric NAME] [--fail-on-change PCT "
                    "[--window N]] [--junit PATH]",
                    "[--history PATH] --record RESULTS", "[--history PATH] --export FILE | --import FILE"},
       .description =
           "Lists the runs recorded in the history database (newest first), or with --scenario the median\n"
           "step time of one scenario across runs (oldest first) with a sparkline. With --html DIR, writes an\n"
           "offline, static site: an index with the latest change of every scenario, and a page per scenario\n"
           "with its trend (median and 95% CI per run, change points marked, contended runs drawn apart,\n"
           "commits on the axis); --html FILE.html writes one page of trend charts instead. With --changes,\n"
           "finds the points where a scenario's step time (or --metric) shifted over the recorded runs\n"
           "(E-Divisive means with a permutation test), newest first, each between two runs and their\n"
           "commits; --fail-on-change makes it a CI gate.\n",
       .positionals = {},
       .options = {history_path_option(),
                   history_db_alias_option(),
                   {"--scenario", "ID", "trend of one scenario, e.g. mlp@synthetic/fp32/w0/a1/b64"},
                   {"--limit", "N", "at most N runs (the newest)"},
                   {"--html", "DIR|FILE.html",
                    "write a static site (index and a page per scenario) into DIR, or one\npage with a trend chart per "
                    "scenario when the name ends in .html"},
                   {"--matrix", "NAME", "with --html or --changes: only scenarios of runs of this matrix"},
                   {"--changes", "", "list the change points of every scenario's history, newest first"},
                   {"--metric", "NAME",
                    "with --changes: step_time (default), samples_per_s, peak_memory, or\n"
                    "paired_ratio (step time NEW/OLD of runs recorded by ab --history)"},
                   {"--fail-on-change", "PCT",
                    "with --changes: exit 1 when a regression of at least PCT percent starts\nin the newest "
                    "--window runs of a scenario"},
                   {"--window", "N", "with --fail-on-change: how many of the newest runs count (default 10)"},
                   {"--junit", "PATH", "with --changes: also write JUnit XML, one test case per scenario"},
                   {"--record", "RESULTS", "store a results directory or results.json file in the history"},
                   {"--export", "FILE",
                    "write every run as JSON lines, oldest first, for another history\n"
                    "(another CI runner's, an artifact) to --import"},
                   {"--import", "FILE", "record every run of an --export file (runs already there are replaced)"}},
       .epilogue = "exit codes: 0 success, 1 --fail-on-change found a regression, 2 usage or input error, 5 the\n"
                   "database could not be written\n"},
      show_history};
  return command;
}

int cmd_history(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(history_command(), args, out, err);
}

}  // namespace tb::cli
