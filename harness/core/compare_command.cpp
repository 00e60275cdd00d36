// trainbench compare: run-vs-run comparison table, CI regression gate and A/A noise floor.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "harness/core/command_line.hpp"
#include "harness/core/commands.hpp"
#include "harness/core/comparison.hpp"
#include "harness/core/comparison_report.hpp"
#include "harness/core/durable_file.hpp"
#include "harness/core/error.hpp"
#include "harness/core/history.hpp"

namespace tb {

namespace {


constexpr const char* kUsage = R"(usage: trainbench compare [options] OLD NEW
       trainbench compare [options] --against last|RUN_ID|GIT_REV [NEW]

Compares two runs scenario by scenario (matched by model, dataset, device, optimizer, precision,
workers, accumulation and batch): median step times, change, a 95% interval of the speedup
old/new from the runs' segments (Welch, so between-segment drift is in it) and a verdict
(faster, slower, same, noisy). OLD and NEW are results directories or results.json files.

options:
  --fail-on-regression PCT  the CI gate. Exit 1 when some scenario is slower by more than PCT
                            percent beyond its noise (even the optimistic end of its speedup
                            interval is below 1 - PCT/100, and below its A/A noise floor with
                            --noise), or when a scenario that was ok in OLD is failed, oom,
                            diverged, skipped or missing in NEW. Exit 4 when a scenario was
                            contended (machine loaded) in either run: no verdict on such data
  --allow-broken            with the gate: list failed/missing scenarios but do not fail on them
  --noise FILE              A/A noise floor written by --aa; raises each scenario's threshold
                            to at least the change an A/A pair showed
  --aa                      OLD and NEW are the same build measured twice: write each
                            scenario's noise floor (observed |change|, interval width);
                            refused (exit 2) when a change exceeds 50% or a run was contended
  --noise-out PATH          where --aa writes (default: noise-floor.json next to NEW)
  --allow-env-mismatch      compare runs measured on different hardware (CPU model, device,
                            GPU names and count)
  --against REF             take OLD from the history database: "last" (the newest earlier run
                            of the same matrix, name and content, on the same hardware), a run
                            id, or a git revision prefix (the newest run of that revision with
                            the same matrix); never NEW itself. NEW defaults to the newest
                            recorded run
  --db PATH                 history database (default results/history.sqlite)
  --threshold PCT           |change| band reported as "same" (default 2)
  --json PATH               also write the comparison as JSON
  -h, --help                this text

exit codes:
  0  no regression (or no gate requested)
  1  regression beyond the --fail-on-regression threshold, or a scenario broken or missing in NEW
  2  usage or input error (bad option, unreadable or malformed results file, nothing comparable,
     implausible A/A noise)
  3  environments differ (refused; see --allow-env-mismatch)
  4  the gate refused to judge: a compared scenario was contended in OLD or NEW
  5  an output (--json, --noise-out) could not be written; the previous file is kept
)";

struct Args {
  std::vector<std::string> positional;
  std::optional<double> fail_pct;
  std::string noise_in, noise_out, against, db = History::kDefaultPath, json_out;
  bool aa = false, allow_env_mismatch = false, allow_broken = false, help = false;
  double threshold_pct = 2.0;
};

Args parse_args(const std::vector<std::string>& argv) {
  Args a;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    auto value = [&]() -> const std::string& {
      TB_CHECK_INPUT(i + 1 < argv.size(), "command line", arg, "missing value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") a.help = true;
    else if (arg == "--fail-on-regression") a.fail_pct = parse_non_negative(arg, value());
    else if (arg == "--noise") a.noise_in = value();
    else if (arg == "--noise-out") a.noise_out = value();
    else if (arg == "--aa") a.aa = true;
    else if (arg == "--allow-env-mismatch") a.allow_env_mismatch = true;
    else if (arg == "--allow-broken") a.allow_broken = true;
    else if (arg == "--against") a.against = value();
    else if (arg == "--db") a.db = value();
    else if (arg == "--threshold") a.threshold_pct = parse_non_negative(arg, value());
    else if (arg == "--json") a.json_out = value();
    else if (arg.size() > 1 && arg[0] == '-') throw InputError("command line", arg, "unknown option");
    else a.positional.push_back(arg);
  }
  return a;
}

struct Loaded {
  RunResult old_run, new_run;
  std::string new_location;  // path of NEW, or "" when it came from the history
  std::string old_location;
  std::string chosen;        // which run --against picked, said to the user
};

bool same_matrix(const RunResult& a, const RunResult& b) {
  if (a.matrix_name != b.matrix_name) return false;
  // Runs from before digests existed match on the name alone.
  return a.matrix_digest.empty() || b.matrix_digest.empty() || a.matrix_digest == b.matrix_digest;
}

// OLD for `--against REF`, never NEW itself: an exact run id; "last", the newest earlier run of
// the same matrix (name and content) on the same hardware; or a git revision prefix, the newest
// run of that revision with the same matrix.
std::optional<RunResult> resolve_against(const History& history, const std::string& ref,
                                         const RunResult& new_run, const std::string& db) {
  if (ref != "last" && history.find(ref) && history.find(ref)->run_id == ref) {
    TB_CHECK_INPUT(ref != new_run.run_id, db, "--against",
                   "run '", ref, "' is NEW itself; name an earlier run");
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
    TB_CHECK_INPUT(a.positional.size() == 2, "command line", "", "expected OLD and NEW, got ",
                   a.positional.size(), " path(s); see --help");
    l.old_run = load_results(a.positional[0]);
    l.new_run = load_results(a.positional[1]);
    l.old_location = a.positional[0];
    l.new_location = a.positional[1];
    return l;
  }
  TB_CHECK_INPUT(a.positional.size() <= 1, "command line", "--against",
                 "takes at most one results path (NEW); see --help");
  TB_CHECK_INPUT(std::filesystem::exists(a.db), a.db, "", "no history database (record runs first)");
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
  TB_CHECK_INPUT(old_run.has_value(), a.db, "--against",
                 "no earlier run of matrix '", l.new_run.matrix_name, "' (same content, same "
                 "hardware) matches '", a.against, "' (NEW is run '", l.new_run.run_id, "')");
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

}  // namespace

int cmd_compare(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  try {
    const Args a = parse_args(argv);
    if (a.help) {
      out << kUsage;
      return kExitCompareOk;
    }
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
    if (!a.json_out.empty()) write_file_durably(a.json_out, nlohmann::json(c).dump(2) + '\n');
    if (c.compared == 0) {
      err << "trainbench compare: nothing comparable: no scenario ran ok in both runs ('"
          << c.old_run_id << "' matrix '" << runs.old_run.matrix_name << "', '" << c.new_run_id
          << "' matrix '" << runs.new_run.matrix_name << "')\n";
      if (c.broken) return kExitRegression;  // NEW broke what OLD measured: that is a failure
      return kExitUsage;
    }
    if (a.aa) {
      const std::string path = a.noise_out.empty() ? default_noise_path(runs.new_location) : a.noise_out;
      write_aa_noise_floor(c, runs.new_run, runs.old_location, runs.new_location, path);
      out << "noise floor written to " << path << '\n';
    }
    return gate_exit_code(c, "trainbench compare", err);
  } catch (const OutputError&) {
    throw;  // main says which file and exits kExitOutputError
  } catch (const ImplausibleNoise& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return kExitUsage;
  } catch (const EnvironmentMismatch& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return kExitEnvironment;
  } catch (const std::exception& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return kExitUsage;
  }
}

}  // namespace tb
