// trainbench compare: run-vs-run comparison table, CI regression gate and A/A noise floor.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/comparison_report.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/history_option.hpp>
#include <trainbench/cli/option_values.hpp>
#include <trainbench/cli/trace_changes.hpp>
#include <trainbench/matrix/axis.hpp>
#include <trainbench/measure/comparison.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/results/history.hpp>
#include <trainbench/results/history_store.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

struct Args {
  std::vector<std::string> positional;
  std::optional<double> fail_pct;
  std::string noise_in, noise_out, against, db, json_out, junit_out, markdown_out;
  bool aa = false, allow_env_mismatch = false, allow_broken = false;
  double threshold_pct = 2.0;
};

Args read_args(const ParsedArgs& parsed, std::ostream& err) {
  Args a;
  a.positional = parsed.positionals();
  if (auto v = parsed.value("--fail-on-regression")) a.fail_pct = parse_non_negative("--fail-on-regression", *v);
  if (auto v = parsed.value("--threshold")) a.threshold_pct = parse_non_negative("--threshold", *v);
  a.noise_in = parsed.value_or("--noise", "");
  a.noise_out = parsed.value_or("--noise-out", "");
  a.against = parsed.value_or("--against", "");
  if (!a.against.empty()) a.db = history_path(parsed, err);  // the history is read for --against only
  a.json_out = parsed.value_or("--json", "");
  a.junit_out = parsed.value_or("--junit", "");
  a.markdown_out = parsed.value_or("--markdown", "");
  a.aa = parsed.has("--aa");
  a.allow_env_mismatch = parsed.has("--allow-env-mismatch");
  a.allow_broken = parsed.has("--allow-broken");
  return a;
}

struct Loaded {
  RunResult old_run, new_run;
  std::string new_location;  // path of NEW, or "" when it came from the history
  std::string old_location;
  std::string chosen;  // which run --against picked, said to the user
};

bool same_matrix(const RunResult& a, const RunResult& b) {
  if (a.matrix_name != b.matrix_name) return false;
  // Runs from before digests existed match on the name alone.
  return a.matrix_digest.empty() || b.matrix_digest.empty() || a.matrix_digest == b.matrix_digest;
}

// OLD for `--against REF`, never NEW itself: an exact run id; "last", the newest earlier run of
// the same matrix (name and content) on the same hardware; or a git revision prefix, the newest
// run of that revision with the same matrix.
std::optional<RunResult> resolve_against(const History& history, const std::string& ref, const RunResult& new_run,
                                         const std::string& db) {
  if (ref != "last" && history.find(ref) && history.find(ref)->run_id == ref) {
    TB_CHECK_INPUT(ref != new_run.run_id, db, "--against", "run '", ref, "' is NEW itself; name an earlier run");
    return history.find(ref);
  }
  const std::string new_started = new_run.environment.value("started_at", std::string());
  for (const auto& summary : history.runs()) {  // newest first
    if (summary.run_id == new_run.run_id || summary.matrix != new_run.matrix_name) continue;
    if (ref == "last") {
      if (!new_started.empty() && summary.started_at > new_started) continue;  // later than NEW
    } else if (summary.git_revision.rfind(ref, 0) != 0) {
      continue;
    }
    auto candidate = history.find(summary.run_id);
    if (!candidate || !same_matrix(*candidate, new_run)) continue;
    if (!environment_differences(candidate->environment, new_run.environment).empty()) continue;
    return candidate;
  }
  return std::nullopt;
}

Loaded load_runs(const Args& a) {
  Loaded l;
  if (a.against.empty()) {
    TB_CHECK_INPUT(a.positional.size() == 2, "command line", "", "expected OLD and NEW, got ", a.positional.size(),
                   " path(s); see --help");
    l.old_run = load_results(a.positional[0]);
    l.new_run = load_results(a.positional[1]);
    l.old_location = a.positional[0];
    l.new_location = a.positional[1];
    return l;
  }
  TB_CHECK_INPUT(a.positional.size() <= 1, "command line", "--against",
                 "takes at most one results path (NEW); see --help");
  TB_CHECK_INPUT(is_postgresql_url(a.db) || std::filesystem::exists(a.db), a.db, "",
                 "no history database (record runs first)");
  const History history(a.db);
  if (a.positional.empty()) {
    auto newest = history.find("last");
    TB_CHECK_INPUT(newest.has_value(), a.db, "runs", "no recorded runs");
    l.new_run = std::move(*newest);
  } else {
    l.new_run = load_results(a.positional[0]);
    l.new_location = a.positional[0];
  }
  std::optional<RunResult> old_run = resolve_against(history, a.against, l.new_run, a.db);
  TB_CHECK_INPUT(old_run.has_value(), a.db, "--against", "no earlier run of matrix '", l.new_run.matrix_name,
                 "' (same content, same "
                 "hardware) matches '",
                 a.against, "' (NEW is run '", l.new_run.run_id, "')");
  l.chosen = "against: run " + old_run->run_id + " (matrix '" + old_run->matrix_name + "', " +
             old_run->environment.value("started_at", std::string("time unknown")) + ", git " +
             old_run->environment.value("git_revision", std::string("unknown")).substr(0, 12) + ")";
  l.old_run = std::move(*old_run);
  return l;
}

std::string default_noise_path(const std::string& new_location) {
  namespace fs = std::filesystem;
  if (new_location.empty()) return "noise-floor.json";
  const fs::path p(new_location);
  const fs::path dir = fs::is_directory(p) ? p : p.parent_path();
  return (dir / "noise-floor.json").string();
}

int compare(const ParsedArgs& parsed, std::ostream& out, std::ostream& err) {
  try {
    const Args a = read_args(parsed, err);
    CompareOptions options;
    options.same_threshold = a.threshold_pct / 100.0;
    options.allow_env_mismatch = a.allow_env_mismatch;
    options.fail_on_regression_pct = a.fail_pct;
    options.allow_broken = a.allow_broken;
    if (!a.noise_in.empty()) options.noise = load_noise_floor(a.noise_in);

    const Loaded runs = load_runs(a);
    if (!runs.chosen.empty()) out << runs.chosen << '\n';
    const RunComparison c = compare_runs(runs.old_run, runs.new_run, options);
    if (!c.environment_differences.empty()) {
      err << "warning: comparing runs from different hardware:";
      for (const auto& d : c.environment_differences) err << "\n  " << d;
      err << '\n';
    }
    print_comparison_table(c, out);
    print_trace_changes(c, runs.old_run, runs.old_location, runs.new_run, runs.new_location, 5, out);
    if (!a.json_out.empty()) write_file_durably(a.json_out, nlohmann::json(c).dump(2) + '\n');
    write_ci_outputs(c, "trainbench compare",
                     {.junit_path = a.junit_out, .markdown_path = a.markdown_out, .gate_pct = a.fail_pct});
    if (c.compared == 0) {
      err << "trainbench compare: nothing comparable: no scenario ran ok in both runs ('" << c.old_run_id
          << "' matrix '" << runs.old_run.matrix_name << "', '" << c.new_run_id << "' matrix '"
          << runs.new_run.matrix_name << "')\n";
      if (c.broken) return as_int(ExitCode::failure);  // NEW broke what OLD measured: that is a failure
      return as_int(ExitCode::bad_input);
    }
    if (a.aa) {
      const std::string path = a.noise_out.empty() ? default_noise_path(runs.new_location) : a.noise_out;
      write_aa_noise_floor(c, runs.new_run, runs.old_location, runs.new_location, path);
      out << "noise floor written to " << path << '\n';
    }
    return gate_exit_code(c, "trainbench compare", err);
  } catch (const OutputError&) {
    throw;  // main says which file and exits 5
  } catch (const ImplausibleNoise& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return as_int(ExitCode::bad_input);
  } catch (const EnvironmentMismatch& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return as_int(ExitCode::environment_mismatch);
  } catch (const std::exception& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return as_int(ExitCode::bad_input);
  }
}

// The fields scenarios are matched on, from the axis table scenario_key walks (matrix/axis.hpp),
// so the help lists every one of them.
std::string compare_description() {
  std::string fields;
  const auto& axes = scenario_axes();
  for (std::size_t i = 0; i < axes.size(); ++i)
    fields += std::string(i == 0 ? "" : i + 1 == axes.size() ? " and " : ", ") + axes[i].name;
  std::string text = "Compares two runs scenario by scenario, matched by " + fields +
                     ": median step times, change, a 95% interval of the speedup old/new from the runs' "
                     "segments (Welch, so between-segment drift is in it) and a verdict (faster, slower, "
                     "same, noisy); with several workloads (model, dataset), rows and geomeans per "
                     "workload. Scenarios with a Kineto trace in both runs (profile.kineto) also get "
                     "their five largest operator changes (trainbench diff-trace).";
  // Wrapped at 100 columns, as the other help texts.
  std::string wrapped, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > 100) {
      wrapped += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return wrapped + line + "\n";
}

}  // namespace

const Command& compare_command() {
  static const Command command{
      {.name = "compare",
       .summary = "compare two runs (exit 1 on a regression)",
       .synopses = {"[options] OLD NEW", "[options] --against last|RUN_ID|GIT_REV [NEW]"},
       .description = compare_description(),
       .positionals = {{"OLD", "results directory or results.json (not with --against)"},
                       {"NEW", "results directory or results.json"}},
       .options = {{"--fail-on-regression", "PCT",
                    "the CI gate. Exit 1 when some scenario is slower by more than PCT\n"
                    "percent beyond its noise (even the optimistic end of its speedup\n"
                    "interval is below 1 - PCT/100, and below its A/A noise floor with\n"
                    "--noise), or when a scenario that was ok in OLD is failed, oom,\n"
                    "diverged, skipped or missing in NEW. Exit 4 when the gate refuses\n"
                    "to judge: a scenario was contended (machine loaded) in either run,\n"
                    "or has no interval (fewer than 3 measured segments, \"not judged\")"},
                   {"--allow-broken", "", "with the gate: list failed/missing scenarios but do not fail on them"},
                   {"--noise", "FILE",
                    "A/A noise floor written by --aa; raises each scenario's threshold\n"
                    "to at least the change an A/A pair showed"},
                   {"--aa", "",
                    "OLD and NEW are the same build measured twice: write each\n"
                    "scenario's noise floor (observed |change|, interval width);\n"
                    "refused (exit 2) when a change exceeds 50% or a run was contended"},
                   {"--noise-out", "PATH", "where --aa writes (default: noise-floor.json next to NEW)"},
                   {"--allow-env-mismatch", "",
                    "compare runs measured on different hardware (CPU model, device,\n"
                    "GPU names and count)"},
                   {"--against", "REF",
                    "take OLD from the history database: \"last\" (the newest earlier run\n"
                    "of the same matrix, name and content, on the same hardware), a run\n"
                    "id, or a git revision prefix (the newest run of that revision with\n"
                    "the same matrix); never NEW itself. NEW defaults to the newest\n"
                    "recorded run"},
                   history_path_option(),
                   history_db_alias_option(),
                   {"--threshold", "PCT", "|change| band reported as \"same\" (default 2)"},
                   {"--json", "PATH", "also write the comparison as JSON"},
                   {"--junit", "PATH", "also write JUnit XML: one test case per scenario (regression = failure)"},
                   {"--markdown", "PATH",
                    "also write a Markdown summary for a pull-request comment (also\n"
                    "appended to $GITHUB_STEP_SUMMARY when that is set)"}},
       .epilogue = "exit codes:\n"
                   "  0  no regression (or no gate requested)\n"
                   "  1  regression beyond the --fail-on-regression threshold, or a scenario broken or missing in NEW\n"
                   "  2  usage or input error (bad option, unreadable or malformed results file, nothing comparable,\n"
                   "     implausible A/A noise)\n"
                   "  3  environments differ (refused; see --allow-env-mismatch)\n"
                   "  4  the gate refused to judge: a compared scenario was contended in OLD or NEW, or has no\n"
                   "     interval (fewer than 3 measured segments)\n"
                   "  5  an output (--json, --junit, --markdown, --noise-out) could not be written; the previous file "
                   "is kept\n"},
      compare};
  return command;
}

int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(compare_command(), args, out, err);
}

}  // namespace tb::cli
