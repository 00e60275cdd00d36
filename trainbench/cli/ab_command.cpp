// trainbench ab: two builds measured side by side. It is `run` with a paired executor: each build
// runs as a worker process (trainbench/cli/torch/worker_command.hpp) holding the matrix's
// scenarios, and the schedule every executor runs (trainbench/runner/schedule.hpp) has each
// scenario measured in OLD and NEW back to back, round by round (trainbench/runner/paired_workers.hpp
// says why). Drift of the machine between runs (up to +-29% on this project's VM) hits both builds
// alike inside a round, so the paired interval of NEW/OLD cancels it. Two processes of one build
// also differ by themselves (A/A sessions with one worker pair: up to 13%), so by default every
// round gets a fresh pair of workers. The verdict is `compare`'s: the same paired comparison and
// gate.
#include <signal.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/comparison_report.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/option_values.hpp>
#include <trainbench/measure/comparison.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/results/history.hpp>
#include <trainbench/runner/code_under_test.hpp>
#include <trainbench/runner/paired_workers.hpp>
#include <trainbench/runner/process_merge.hpp>
#include <trainbench/runner/schedule.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

namespace fs = std::filesystem;

struct AbArgs {
  std::string matrix, old_matrix, old_bin, new_bin, out_dir, json_out, junit_out, markdown_out, noise_in, noise_out;
  std::string history, commit, label;  // --history: record NEW with its paired ratios
  bool aa = false;
  std::vector<std::string> sets, old_sets, new_sets;
  std::string memory_budget;
  std::optional<double> fail_pct;
  bool allow_broken = false;
  bool bisect = false;  // exit codes for `git bisect run`
  double threshold_pct = 2.0;
  int rounds_per_process = 1;
};

AbArgs read_ab_args(const ParsedArgs& parsed) {
  AbArgs a;
  a.matrix = parsed.positional(0);
  a.old_matrix = parsed.value_or("--old-matrix", "");
  a.old_bin = parsed.value_or("--old", "");
  a.new_bin = parsed.value_or("--new", "");
  a.out_dir = parsed.value_or("--out", "");
  a.sets = parsed.values("--set");
  a.old_sets = parsed.values("--old-set");
  a.new_sets = parsed.values("--new-set");
  a.memory_budget = parsed.value_or("--memory-budget", "");
  if (auto v = parsed.value("--fail-on-regression")) a.fail_pct = parse_non_negative("--fail-on-regression", *v);
  if (auto v = parsed.value("--threshold")) a.threshold_pct = parse_non_negative("--threshold", *v);
  a.allow_broken = parsed.has("--allow-broken");
  a.json_out = parsed.value_or("--json", "");
  a.junit_out = parsed.value_or("--junit", "");
  a.markdown_out = parsed.value_or("--markdown", "");
  a.bisect = parsed.has("--bisect");
  a.history = parsed.value_or("--history", "");
  a.commit = parsed.value_or("--commit", "");
  a.label = parsed.value_or("--label", "");
  a.noise_in = parsed.value_or("--noise", "");
  a.noise_out = parsed.value_or("--noise-out", "");
  a.aa = parsed.has("--aa");
  if (auto text = parsed.value("--rounds-per-process")) {
    const double v = parse_non_negative("--rounds-per-process", *text);
    TB_CHECK_INPUT(v == static_cast<int>(v) && v <= 1000, "command line", "--rounds-per-process",
                   "expected a whole number of rounds (0: one worker pair for the whole session)");
    a.rounds_per_process = static_cast<int>(v);
  }
  TB_CHECK_INPUT(!a.matrix.empty(), "command line", "MATRIX", "trainbench ab needs a matrix file");
  TB_CHECK_INPUT(!a.bisect || a.fail_pct.has_value(), "command line", "--bisect",
                 "needs --fail-on-regression PCT: the slowdown that makes a commit \"bad\"");
  for (auto* bin : {&a.old_bin, &a.new_bin}) {
    const char* option = bin == &a.old_bin ? "--old" : "--new";
    TB_CHECK_INPUT(!bin->empty(), "command line", option, "is required (a trainbench executable)");
    TB_CHECK_INPUT(fs::is_regular_file(*bin) && ::access(bin->c_str(), X_OK) == 0, "command line", option, "'", *bin,
                   "' is not an executable file");
    // The workers are exec'd: a bare name ("trainbench-reference") would be looked up on PATH.
    if (fs::path(*bin).is_relative()) *bin = fs::absolute(*bin).lexically_normal().string();
  }
  return a;
}

// "20261206-025300-p4242": when and by which process, so that no two sessions share an id.
std::string session_suffix() {
  const auto t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::gmtime(&t));
  return std::string(buf) + "-p" + std::to_string(::getpid());
}

// Where a session's results go: DIR/old, DIR/new, DIR/comparison.json.
struct AbSession {
  std::string id;       // recorded by both sides: the folder's name, when and which process
  std::string out_dir;  // DIR
};

AbSession name_session(const AbArgs& a) {
  AbSession s;
  // Unique even when --out names a folder used before (a CI job's `--out ab` every time): the id
  // pairs the two sides for `compare` and names their runs in a history.
  std::string folder = fs::path(a.out_dir).lexically_normal().filename().string();
  if (folder.empty() || folder == "." || folder == "..") folder = "ab";
  s.id = folder + "-" + session_suffix();
  s.out_dir = a.out_dir.empty() ? "results/" + s.id : a.out_dir;
  return s;
}

PairedWorkersOptions paired_options(const AbArgs& a, const AbSession& session) {
  PairedWorkersOptions o;
  o.matrix = a.matrix;
  o.old_matrix = a.old_matrix;
  o.programs = {a.old_bin, a.new_bin};
  o.session = session.id;
  o.out_dir = session.out_dir;
  o.sets = a.sets;
  o.side_sets = {a.old_sets, a.new_sets};
  o.memory_budget = a.memory_budget;
  o.rounds_per_process = a.rounds_per_process;
  return o;
}

// Both builds measured side by side, on the schedule every executor runs (schedule.hpp); each
// round's progress on `out`. Throws PairedSessionError when a worker refused or crashed.
std::array<std::vector<std::string>, 2> measure_side_by_side(const AbArgs& a, const AbSession& session,
                                                             std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  PairedWorkerSet pair(paired_options(a, session));
  const StoppingRule rule = pair.stopping_rule();
  out << "trainbench ab: " << a.matrix << " (" << pair.size() << " scenarios, " << rule.rounds << " rounds, "
      << (a.rounds_per_process == 0 ? std::string("one worker pair")
                                    : "a fresh worker pair every " + std::to_string(a.rounds_per_process) + " round(s)")
      << "), OLD " << a.old_bin << " vs NEW " << a.new_bin << " side by side; results in " << session.out_dir << '\n';
  ScheduleHooks hooks;
  hooks.checkpoint = [&] { pair.save(); };
  hooks.round_finished = [&](int round, const std::vector<std::size_t>&) {
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << "round " << round + 1 << (round < rule.rounds ? "/" + std::to_string(rule.rounds) : " (extra)") << " done, "
        << static_cast<int>(seconds) << " s\n"
        << std::flush;
  };
  Schedule(rule, pair.plan().seed).run(pair, hooks);
  return {pair.parts(0), pair.parts(1)};
}

// Each side's processes as one run: DIR/old/results.json, DIR/new/results.json.
void merge_sides(const std::array<std::vector<std::string>, 2>& parts, const AbSession& session) {
  for (int s = 0; s < 2; ++s) {
    std::vector<RunResult> loaded;
    for (const auto& part : parts[s]) loaded.push_back(load_results(part));
    RunResult merged = merge_process_parts(loaded);
    merged.run_id = session.id + "-" + PairedWorkerSet::kFolders[s];
    if (merged.provenance.ab_session)
      merged.provenance.ab_session->processes = static_cast<std::int64_t>(parts[s].size());
    annotate_run(merged);  // speedups within this side, from all its segments
    save_results(merged, (fs::path(session.out_dir) / PairedWorkerSet::kFolders[s] / "results.json").string());
  }
}

// NEW's results.json gets each compared scenario's paired ratio NEW/OLD and what OLD was
// (provenance.ab_session); with --history the NEW side is recorded with them, as the commit under
// test (--commit/--label, else the matrix's git repository or the CI's variables), so that
// `history --changes --metric paired_ratio` follows a drift-free series across sessions.
void record_paired_ratios(const AbArgs& a, const RunComparison& c, RunResult new_run, const std::string& new_dir,
                          std::ostream& out) {
  if (!new_run.provenance.ab_session) return;
  auto& session = *new_run.provenance.ab_session;
  session.reference = "--old " + a.old_bin;
  session.paired.clear();
  for (const auto& s : c.scenarios) {
    if (!s.compared) continue;
    // speedup = OLD/NEW; the ratio NEW/OLD grows with a slowdown, as a step time does.
    session.paired.push_back({.scenario = s.id,
                              .ratio = 1 / s.speedup.ratio,
                              .low = 1 / s.speedup.high,
                              .high = 1 / s.speedup.low,
                              .valid = s.speedup.valid});
  }
  const CodeUnderTest code =
      describe_code_under_test(fs::absolute(a.matrix).parent_path().string(), a.commit, a.label, process_environment());
  if (!code.empty()) new_run.environment["code_under_test"] = code;
  const std::string path = (fs::path(new_dir) / "results.json").string();
  save_results(new_run, path);
  if (a.history.empty()) return;
  History history(a.history);
  history.record(new_run, path);
  out << "history: recorded NEW (run " << new_run.run_id << ") with its paired ratios in " << history.path() << '\n';
}

// The verdict: the same paired comparison and gate as `compare DIR/old DIR/new`.
// `regression`: set when some scenario is slower beyond the gate (what --bisect calls bad).
int judge(const AbArgs& a, const AbSession& session, bool& regression, std::ostream& out, std::ostream& err) {
  const std::string old_dir = (fs::path(session.out_dir) / PairedWorkerSet::kFolders[0]).string();
  const std::string new_dir = (fs::path(session.out_dir) / PairedWorkerSet::kFolders[1]).string();
  const RunResult old_run = load_results(old_dir);
  const RunResult new_run = load_results(new_dir);
  CompareOptions options;
  options.same_threshold = a.threshold_pct / 100.0;
  options.fail_on_regression_pct = a.fail_pct;
  options.allow_broken = a.allow_broken;
  if (!a.noise_in.empty()) options.noise = load_noise_floor(a.noise_in);
  const RunComparison c = compare_runs(old_run, new_run, options);
  regression = c.regression;
  record_paired_ratios(a, c, new_run, new_dir, out);
  out << '\n';
  print_comparison_table(c, out);
  const std::string json_path =
      a.json_out.empty() ? (fs::path(session.out_dir) / "comparison.json").string() : a.json_out;
  write_file_durably(json_path, nlohmann::json(c).dump(2) + '\n');
  out << "comparison: " << json_path << '\n';
  write_ci_outputs(c, "trainbench ab",
                   {.junit_path = a.junit_out, .markdown_path = a.markdown_out, .gate_pct = a.fail_pct});
  if (c.compared == 0) {
    err << "trainbench ab: nothing comparable: no scenario ran ok on both sides\n";
    return c.broken ? as_int(ExitCode::failure) : as_int(ExitCode::bad_input);
  }
  if (a.aa) {
    const std::string path =
        a.noise_out.empty() ? (fs::path(session.out_dir) / "noise-floor.json").string() : a.noise_out;
    write_aa_noise_floor(c, new_run, old_dir, new_dir, path);
    out << "noise floor written to " << path << '\n';
  }
  return gate_exit_code(c, "trainbench ab", err);
}

int run_session(const AbArgs& a, bool& regression, std::ostream& out, std::ostream& err) {
  // A worker that dies must show up as a failed write, not kill this process with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  const AbSession session = name_session(a);
  ensure_writable_dir(session.out_dir);  // before any measuring: OutputError, exit 5
  std::array<std::vector<std::string>, 2> parts;
  try {
    parts = measure_side_by_side(a, session, out);
  } catch (const PairedSessionError& e) {
    err << "trainbench ab: " << e.what() << '\n';
    return e.new_side_at_fault() ? as_int(ExitCode::failure) : as_int(ExitCode::bad_input);
  }
  try {
    merge_sides(parts, session);
    return judge(a, session, regression, out, err);
  } catch (const OutputError&) {
    throw;  // main names the file and exits 5
  } catch (const std::exception& e) {
    err << "trainbench ab: " << e.what() << '\n';
    return as_int(ExitCode::bad_input);
  }
}

// `git bisect run` reads 0 as good, 125 as "cannot test this commit" (skip), 1-127 as bad and
// anything above 127 as "stop bisecting". A slower commit is bad; a commit that cannot be judged
// (contended, no interval, NEW broken or crashed: a build that does not run says nothing about
// speed) is skipped; bad input or an unwritable output stops the bisection rather than marking
// every commit bad.
int bisect_exit_code(int code, bool regression) {
  if (code == as_int(ExitCode::ok)) return 0;
  if (code == as_int(ExitCode::failure)) return regression ? 1 : 125;
  if (code == as_int(ExitCode::contended)) return 125;
  return 128;
}

int ab(const ParsedArgs& parsed, std::ostream& out, std::ostream& err) {
  bool regression = false;
  if (!parsed.has("--bisect")) return run_session(read_ab_args(parsed), regression, out, err);
  try {
    const int code = run_session(read_ab_args(parsed), regression, out, err);  // sets `regression`
    const int bisect = bisect_exit_code(code, regression);
    err << "trainbench ab --bisect: exit " << bisect
        << (bisect == 0     ? " (good)"
            : bisect == 1   ? " (bad: slower)"
            : bisect == 125 ? " (skip: not judged)"
                            : " (stop)")
        << '\n';
    return bisect;
  } catch (const std::exception& e) {
    err << "trainbench ab: " << e.what() << "\ntrainbench ab --bisect: exit 128 (stop)\n";
    return 128;
  }
}

}  // namespace

const Command& ab_command() {
  static const Command command{
      {.name = "ab",
       .summary = "two builds measured side by side, round by round: a paired comparison that the\n"
                  "machine's drift between runs cannot fake (the gate to use on a shared machine)",
       .synopses = {"MATRIX --old BIN --new BIN [options]"},
       .description =
           "Measures two trainbench builds side by side on one machine and compares them. Both builds run\n"
           "MATRIX as worker processes; in every round, in a new shuffled order, each scenario gets one\n"
           "segment in OLD and one in NEW back to back (which goes first is a coin flip), each round by a\n"
           "fresh pair of worker processes. The speedup OLD/NEW of each scenario is a paired interval over\n"
           "rounds, so drift of the machine between separate runs (docs/how-it-measures.md) cancels out\n"
           "and the difference between two processes of one build is inside the interval. Results: "
           "DIR/old/results.json,\n"
           "DIR/new/results.json and DIR/comparison.json (`trainbench compare DIR/old DIR/new` shows the same\n"
           "paired comparison again).\n",
       .positionals = {{"MATRIX", "the scenario matrix both builds run"}},
       .options = {{"--old", "BIN", "the OLD trainbench executable"},
                   {"--new", "BIN", "the NEW trainbench executable (the same path twice is an A/A test)"},
                   {"--out", "DIR", "where results go (default results/ab-<time>-<pid>)"},
                   {"--set", "PATH=JSON", "matrix override for both sides", true},
                   {"--old-set", "PATH=JSON", "override for OLD only", true},
                   {"--old-matrix", "PATH",
                    "OLD runs this matrix file instead of MATRIX (another checkout's\n"
                    "copy of it, as `trainbench bisect` uses); the scenarios must match"},
                   {"--new-set", "PATH=JSON",
                    "override for NEW only (e.g. a planted slowdown:\n"
                    "--new-set test_delay_ms=2.5). Both sides must still expand\n"
                    "to the same scenarios",
                    true},
                   {"--rounds-per-process", "N",
                    "start a fresh pair of workers every N rounds (default 1); 0 keeps\n"
                    "one pair for the whole session. Two processes of one build differ\n"
                    "by themselves (memory layout, CPU placement), so with one pair\n"
                    "that difference would pass for the\n"
                    "builds'; fresh pairs put it inside the paired interval. Each side's\n"
                    "processes are merged into one results.json (segments from all)"},
                   {"--memory-budget", "SIZE", "CPU: a scenario whose peak RSS exceeds it is \"oom\" (each side)"},
                   {"--fail-on-regression", "PCT",
                    "the CI gate: exit 1 when some scenario is slower in NEW by more than\n"
                    "PCT percent (even the optimistic end of its family-wise paired\n"
                    "interval), or ok in OLD and broken in NEW; exit 4 when contended or\n"
                    "when a scenario has no interval (fewer than 3 rounds)"},
                   {"--allow-broken", "", "with the gate: list broken scenarios but do not fail on them"},
                   {"--aa", "",
                    "OLD and NEW are the same build: write each scenario's noise floor\n"
                    "(observed |change|) to --noise-out (default DIR/noise-floor.json);\n"
                    "refused (exit 2) beyond 50% or when contended"},
                   {"--noise", "FILE",
                    "a noise floor from an A/A session (or `compare --aa`): raises each\n"
                    "scenario's gate threshold to at least the change A/A showed. Two\n"
                    "worker processes of one build differ by a few percent by themselves\n"
                    "(memory layout, CPU placement); a paired interval cannot see that"},
                   {"--noise-out", "PATH", "where --aa writes (default DIR/noise-floor.json)"},
                   {"--threshold", "PCT", "|change| band reported as \"same\" (default 2)"},
                   {"--json", "PATH", "also write the comparison here (default DIR/comparison.json)"},
                   {"--junit", "PATH", "also write JUnit XML: one test case per scenario (regression = failure)"},
                   {"--markdown", "PATH",
                    "also write a Markdown summary for a pull-request comment (also\n"
                    "appended to $GITHUB_STEP_SUMMARY when that is set)"},
                   {"--history", "DB",
                    "record NEW in this history with each scenario's paired ratio NEW/OLD\n"
                    "(history --changes --metric paired_ratio: a series without the\n"
                    "machine's drift, against a pinned OLD build)"},
                   {"--commit", "SHA", "with --history: the commit NEW measures (default: the matrix's git)"},
                   {"--label", "TEXT", "with --history: a label for NEW's run, e.g. nightly"},
                   {"--bisect", "",
                    "exit codes for `git bisect run` (needs --fail-on-regression): 0 good,\n"
                    "1 bad (slower beyond the gate), 125 skip (not judged, or NEW broken),\n"
                    "128 stop (bad input, an output not written)"}},
       .epilogue = "exit codes: as `compare`: 0 no regression; 1 regression, a scenario broken in NEW, or the NEW\n"
                   "worker crashed; 2 bad input (either side refused the matrix, the sides expand it differently,\n"
                   "or the OLD worker crashed); 4 the gate refused (contended, or no interval); 5 an output could\n"
                   "not be written; with --bisect: 0 good, 1 bad, 125 skip, 128 stop\n"},
      ab};
  return command;
}

int cmd_ab(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(ab_command(), args, out, err);
}

}  // namespace tb::cli
