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

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
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
#include <trainbench/runner/sequential_gate.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/utc_time.hpp>

namespace tb::cli {

namespace {

namespace fs = std::filesystem;

// Defaults sized for a CI job on a 2-core VM (docs/gating-ci.md: what a verdict takes there).
constexpr int kDefaultMaxRounds = 100;
constexpr double kDefaultTimeBudgetS = 20 * 60;

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
  // The sequential gate's budget (with --fail-on-regression): clean rounds at most, and time.
  int max_rounds = kDefaultMaxRounds;
  double time_budget_s = kDefaultTimeBudgetS;
  bool budget_given = false;
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
  if (auto text = parsed.value("--max-rounds")) {
    const double v = parse_non_negative("--max-rounds", *text);
    TB_CHECK_INPUT(v == static_cast<int>(v) && v >= 3 && v <= 1000, "command line", "--max-rounds",
                   "expected a whole number of rounds from 3 (a paired interval needs 3) to 1000, got '", *text, "'");
    a.max_rounds = static_cast<int>(v);
    a.budget_given = true;
  }
  if (auto text = parsed.value("--time-budget")) {
    a.time_budget_s = parse_duration("--time-budget", *text);
    a.budget_given = true;
  }
  TB_CHECK_INPUT(!a.budget_given || a.fail_pct.has_value(), "command line",
                 parsed.has("--max-rounds") ? "--max-rounds" : "--time-budget",
                 "needs --fail-on-regression PCT: the budget is the sequential gate's (without a gate, ab measures the "
                 "matrix's rounds)");
  TB_CHECK_INPUT(!a.fail_pct || a.rounds_per_process == 1, "command line", "--rounds-per-process",
                 "must be 1 with --fail-on-regression: the gate's interval counts every round as independent, but "
                 "rounds measured by one worker pair share that pair's per-process offset (a few percent, which "
                 "would pass for a change)");
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
std::string session_suffix() { return utc_now(UtcForm::compact) + "-p" + std::to_string(::getpid()); }

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

// The sequential gate of a gated session: every scenario judged against its gate (the
// --fail-on-regression percentage, raised to its A/A noise floor with --noise), first looked at
// after the matrix's rounds (at least 3), at most --max-rounds clean rounds.
std::unique_ptr<SequentialGate> make_gate(const AbArgs& a, const WorkerHello& plan) {
  if (!a.fail_pct) return nullptr;
  NoiseFloor noise;
  if (!a.noise_in.empty()) noise = load_noise_floor(a.noise_in);
  std::vector<double> gates;
  for (const auto& s : plan.scenarios) {
    double pct = *a.fail_pct;
    if (const auto* floor = noise.find(s.key)) pct = std::max(pct, floor->abs_change_pct);
    TB_CHECK_INPUT(pct < 100, "command line", "--fail-on-regression", "a gate must be below 100%");
    gates.push_back(pct / 100);
  }
  SequentialGateOptions options;
  options.max_rounds = a.max_rounds;
  options.first_look = std::clamp(plan.rounds, 3, a.max_rounds);
  return std::make_unique<SequentialGate>(std::move(gates), options);
}

// Both builds measured side by side, on the schedule every executor runs (schedule.hpp); each
// round's progress on `out`. Throws PairedSessionError when a worker refused or crashed. With a
// gate, each scenario goes on until its verdict is settled, the budget of rounds or time is spent
// or its contended rounds exceed their share; `gate` then holds the verdicts.
std::array<std::vector<std::string>, 2> measure_side_by_side(const AbArgs& a, const AbSession& session,
                                                             std::unique_ptr<SequentialGate>& gate,
                                                             std::vector<WorkerScenario>& plan, std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  PairedWorkersOptions options = paired_options(a, session);
  PairedWorkerSet pair(options);
  plan = pair.plan().scenarios;
  gate = make_gate(a, pair.plan());
  pair.judge_with(gate.get());
  const StoppingRule rule = pair.stopping_rule();
  out << "trainbench ab: " << a.matrix << " (" << pair.size() << " scenarios, ";
  if (gate)
    out << "until each verdict is settled: first look after " << rule.rounds << " rounds, at most "
        << gate->options().max_rounds << " clean rounds or " << static_cast<int>(a.time_budget_s) << " s";
  else out << rule.rounds << " rounds";
  out << ", "
      << (a.rounds_per_process == 0 ? std::string("one worker pair")
                                    : "a fresh worker pair every " + std::to_string(a.rounds_per_process) + " round(s)")
      << "), OLD " << a.old_bin << " vs NEW " << a.new_bin << " side by side; results in " << session.out_dir << '\n';
  ScheduleHooks hooks;
  hooks.checkpoint = [&] { pair.save(); };
  hooks.round_finished = [&](int round, const std::vector<std::size_t>& next) {
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << "round " << round + 1;
    if (!gate) out << (round < rule.rounds ? "/" + std::to_string(rule.rounds) : " (extra)");
    out << " done, " << static_cast<int>(seconds) << " s";
    if (gate) {
      int settled = 0;
      for (std::size_t i = 0; i < gate->size(); ++i) settled += gate->done(i) ? 1 : 0;
      out << "; " << settled << " of " << gate->size() << " verdicts in";
      // A budget that cannot reach the first look (3 rounds at least) is bad input, said after the
      // first round (the only way to know a round's time) rather than after the budget.
      if (round == 0 && seconds * rule.rounds > a.time_budget_s)
        throw InputError("command line", "--time-budget",
                         "is shorter than the " + std::to_string(rule.rounds) +
                             " rounds a first interval needs: the first round took " +
                             std::to_string(static_cast<int>(seconds + 0.5)) + " s, so give at least " +
                             std::to_string(static_cast<int>(seconds * rule.rounds * 1.2 + 1)) + "s");
      if (!next.empty() && seconds >= a.time_budget_s && round + 1 >= rule.rounds) {
        gate->close();
        out << "; time budget spent, the open verdicts take their last look";
      }
    }
    out << '\n' << std::flush;
  };
  Schedule(rule, pair.plan().seed).run(pair, hooks);
  if (gate && pair.segments_missing()) {
    out << "note: a side's trainbench sends no segments back (it predates sequential verdicts): the gate "
           "judged the first "
        << rule.rounds << " rounds as `compare` would\n";
    gate.reset();
  }
  if (gate) gate->close();  // the round limit reached, or a side stopped: the open ones look last
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
int judge(const AbArgs& a, const AbSession& session, const SequentialGate* gate,
          const std::vector<WorkerScenario>& plan, bool& regression, std::ostream& out, std::ostream& err) {
  const std::string old_dir = (fs::path(session.out_dir) / PairedWorkerSet::kFolders[0]).string();
  const std::string new_dir = (fs::path(session.out_dir) / PairedWorkerSet::kFolders[1]).string();
  const RunResult old_run = load_results(old_dir);
  const RunResult new_run = load_results(new_dir);
  CompareOptions options;
  options.same_threshold = a.threshold_pct / 100.0;
  options.fail_on_regression_pct = a.fail_pct;
  options.allow_broken = a.allow_broken;
  if (!a.noise_in.empty()) options.noise = load_noise_floor(a.noise_in);
  RunComparison c = compare_runs(old_run, new_run, options);
  if (gate) {
    std::map<std::string, SequentialRecord> records;
    for (std::size_t i = 0; i < plan.size() && i < gate->size(); ++i)
      records[plan[i].key.dump()] = sequential_record(*gate, i);
    apply_sequential_verdicts(c, records, options.same_threshold);
  }
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
  std::unique_ptr<SequentialGate> gate;
  std::vector<WorkerScenario> plan;
  try {
    parts = measure_side_by_side(a, session, gate, plan, out);
  } catch (const PairedSessionError& e) {
    err << "trainbench ab: " << e.what() << '\n';
    return e.new_side_at_fault() ? as_int(ExitCode::failure) : as_int(ExitCode::bad_input);
  }
  try {
    merge_sides(parts, session);
    return judge(a, session, gate.get(), plan, regression, out, err);
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
            : bisect == 125 ? " (skip: undecided or not judged)"
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
           "and the difference between two processes of one build is inside the interval. With a gate\n"
           "(--fail-on-regression) it measures until each verdict is settled, on intervals that stay valid\n"
           "however often it looks (docs/how-it-measures.md#sequential-verdicts). Results: "
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
                    "processes are merged into one results.json (segments from all).\n"
                    "Must be 1 with --fail-on-regression (the gate counts rounds as\n"
                    "independent)"},
                   {"--memory-budget", "SIZE", "CPU: a scenario whose peak RSS exceeds it is \"oom\" (each side)"},
                   {"--fail-on-regression", "PCT",
                    "the CI gate, measured until it is answered: rounds go on until each\n"
                    "scenario is \"slower\" (its whole interval beyond PCT percent: exit 1)\n"
                    "or \"not slower\" (its interval excludes a PCT slowdown), or the\n"
                    "budget is spent (\"undecided\": exit 4). A round contended in either\n"
                    "build is dropped and measured again; past a third of the budget the\n"
                    "session is refused (exit 4). Exit 1 too when ok in OLD, broken in NEW"},
                   {"--max-rounds", "N",
                    "with the gate: at most N clean rounds per scenario (default 100, at\n"
                    "least 3); the first look is after the matrix's steps.rounds"},
                   {"--time-budget", "DURATION",
                    "with the gate: stop measuring after this long, e.g. 10m, 90s, 1h\n"
                    "(default 20m); the open verdicts then take their last look"},
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
                    "exit codes for `git bisect run` (needs --fail-on-regression): 0 good\n"
                    "(not slower), 1 bad (slower beyond the gate), 125 skip (undecided,\n"
                    "not judged, or NEW broken), 128 stop (bad input, an output not written)"}},
       .epilogue = "exit codes: 0 no regression (with the gate: every scenario not slower); 1 regression, a\n"
                   "scenario broken in NEW, or the NEW worker crashed; 2 bad input (either side refused the matrix,\n"
                   "the sides expand it differently, the OLD worker crashed, a budget option that is not one);\n"
                   "4 undecided after the budget, or the gate refused (too many contended rounds, no interval);\n"
                   "5 an output could not be written; with --bisect: 0 good, 1 bad, 125 skip, 128 stop\n"},
      ab};
  return command;
}

int cmd_ab(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(ab_command(), args, out, err);
}

}  // namespace tb::cli
