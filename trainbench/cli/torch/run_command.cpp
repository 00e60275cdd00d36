#include <trainbench/cli/torch/run_command.hpp>

#include <trainbench/cli/torch/matrix_options.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include <trainbench/capacity/byte_size.hpp>
#include <trainbench/capacity/torch/capacity_search.hpp>
#include <trainbench/cli/console_progress.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/option_values.hpp>
#include <trainbench/cli/progress_options.hpp>
#include <trainbench/matrix/isolation_settings.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/matrix_listing.hpp>
#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/results/history_location.hpp>
#include <trainbench/runner/crash_supervisor.hpp>
#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/liveness.hpp>
#include <trainbench/runner/rank_environment.hpp>
#include <trainbench/runner/rank_launcher.hpp>
#include <trainbench/runner/resume_check.hpp>
#include <trainbench/runner/run_args.hpp>
#include <trainbench/runner/run_folder_lock.hpp>
#include <trainbench/runner/shard.hpp>
#include <trainbench/runner/torch/environment.hpp>
#include <trainbench/runner/torch/python_loop_check.hpp>
#include <trainbench/runner/torch/rank_protocol.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb::cli {

namespace {

// "trainbench run m.json --out r": what the folder lock records for a refused second run.
std::string command_text(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

// run's command line as read from its option table.
struct RunArgs {
  std::string matrix;
  std::string out_dir;
  std::string formats = "md,csv,html,gbench";
  std::vector<std::string> sets;
  std::optional<bool> profile;
  std::int64_t memory_budget = 0;
  std::string history;                              // "" with --no-history (history_location.hpp otherwise)
  std::string history_note;                         // said once when the old relative history is the one used
  std::optional<bool> isolate;                      // --isolate / --no-isolate; else the matrix's "isolate"
  std::optional<Detail> progress = Detail::normal;  // std::nullopt: --quiet
  int nproc_per_node = 0;       // 0: no launcher of ours (one process, or torchrun's / srun's ranks)
  double dist_timeout_s = 300;  // every collective and every wait for another rank
  std::optional<Shard> shard;   // --shard i/n
  std::string commit, label;    // --commit, --label: the code under test (code_under_test.hpp)
};

constexpr int kMaxProcPerNode = 1024;

RunArgs read_run_args(const ParsedArgs& p) {
  RunArgs a;
  a.matrix = p.positional(0);
  a.out_dir = p.value_or("--out", "");
  a.formats = p.value_or("--format", a.formats);
  a.sets = p.values("--set");
  if (const auto flag = p.last_of({"--profile", "--no-profile"}); !flag.empty()) a.profile = flag == "--profile";
  if (const auto size = p.value("--memory-budget"))
    a.memory_budget = capacity::parse_byte_size(*size, "--memory-budget");
  if (p.last_of({"--history", "--no-history"}) != "--no-history") {
    const auto location = resolve_history_location(p.value("--history"));
    a.history = location.path;
    a.history_note = location.note;
  }
  if (const auto flag = p.last_of({"--isolate", "--no-isolate"}); !flag.empty()) a.isolate = flag == "--isolate";
  a.progress = progress_detail(p);
  if (const auto n = p.value("--nproc-per-node")) {
    const double v = parse_non_negative("--nproc-per-node", *n);
    TB_CHECK_INPUT(v >= 1 && v <= kMaxProcPerNode && v == static_cast<int>(v), "command line", "--nproc-per-node",
                   "expected a whole number of ranks from 1 to ", kMaxProcPerNode, ", got '", *n, "'");
    a.nproc_per_node = static_cast<int>(v);
  }
  if (const auto t = p.value("--dist-timeout")) {
    a.dist_timeout_s = parse_non_negative("--dist-timeout", *t);
    TB_CHECK_INPUT(a.dist_timeout_s >= 1 && a.dist_timeout_s <= 7 * 24 * 3600, "command line", "--dist-timeout",
                   "expected seconds from 1 to a week, got '", *t, "'");
  }
  if (const auto shard = p.value("--shard")) a.shard = parse_shard(*shard);
  a.commit = p.value_or("--commit", "");
  a.label = p.value_or("--label", "");
  return a;
}

// After the run: 130/143/129 when a signal stopped it (with how to finish it), 1 when a scenario
// broke, else 0.
int run_exit_code(const RunResult& run, const std::string& out_dir, std::ostream& err) {
  if (interrupted()) {
    err << "trainbench: interrupted; finish with: trainbench run --resume " << out_dir << "\n";
    return interrupt_exit_code();
  }
  // A run in which something broke is not a success, whatever was measured beside it.
  for (const auto& s : run.scenarios)
    if (needs_rerun(s)) return as_int(ExitCode::failure);
  return as_int(ExitCode::ok);
}

// Reads the matrix with its run settings (isolation, a planted crash) and the report formats.
// InputError for anything wrong, before anything runs.
void load_for_run(const RunArgs& a, MatrixSpec& spec, RunOptions& options, ConsoleProgress& console) {
  auto loaded = load_matrix_with_isolation(a.matrix, default_parse_options(), a.sets);
  spec = std::move(loaded.spec);
  const auto scenarios = expand(spec);
  check_python_loops(scenarios, a.matrix);  // a Python loop's file and function, before anything runs
  options.formats = a.formats == "none" ? std::vector<std::string>{} : parse_report_formats(a.formats);
  options.isolate = a.isolate.value_or(loaded.isolation.isolate);
  options.hang_timeout_s = loaded.isolation.hang_timeout_s;
  // A Python loop's worker may be silent for its own python.timeout_s: the run is not hung before.
  for (const auto& s : scenarios)
    if (s.loop == LoopKind::python) options.hang_timeout_s = std::max(options.hang_timeout_s, s.python.timeout_s);
  options.set_overrides = a.sets;
  // Without --isolate a planted crash takes this process down, as a real one would.
  if (loaded.isolation.test_crash) options.test_hook = make_test_crash_hook(*loaded.isolation.test_crash);
  TB_CHECK_INPUT(!(options.isolate && spec.batch_search), a.matrix, "axes.batch",
                 "\"max\" (a capacity search) cannot run with --isolate; give the batch");
  // Each machine's search could find another batch, so the shards would not divide one matrix.
  TB_CHECK_INPUT(!(a.shard && spec.batch_search), a.matrix, "axes.batch",
                 "\"max\" (a capacity search on each machine) cannot be sharded with --shard; give the batch");
  options.shard = a.shard;
  options.listener = a.progress ? &console : nullptr;
  options.profile = a.profile;
  options.memory_budget_bytes = a.memory_budget;
  options.history_db = a.history;
  options.code_under_test = describe_code_under_test(std::filesystem::absolute(a.matrix).parent_path().string(),
                                                     a.commit, a.label, process_environment());
  if (!a.history_note.empty()) console.message(a.history_note + "\n");
  for (const auto& note : spec.baseline_notes) console.message(note + "\n");
}

int resume_run(const ParsedArgs& given, const std::shared_ptr<dist::World>& world, std::ostream& out,
               std::ostream& err) {
  const std::string dir = *given.value("--resume");
  const bool force = given.has("--force");
  const std::string results_path = (std::filesystem::path(dir) / "results.json").string();
  TB_CHECK_INPUT(std::filesystem::exists(results_path), "command line", "--resume", dir,
                 " holds no results.json: nothing to resume");
  RunResult previous = load_results(results_path);
  TB_CHECK_INPUT(!previous.provenance.merge, results_path, "provenance.merge",
                 "merged shards (trainbench merge): resume the shard that did not finish, then merge again");
  const auto takes_value = [](const std::string& name) {
    const Option* option = run_command().spec.find(name);
    return option && option->takes_value();
  };
  RunArgs a = read_run_args(parse_arguments(
      run_command().spec, resume_arguments(previous.environment.value("command_line", nlohmann::json::array()),
                                           given.tokens_without({"--resume", "--force"}), takes_value)));
  TB_CHECK_INPUT(a.out_dir.empty(), "command line", "--out", "not with --resume: the results stay in ", dir);
  // A run that had its ranks started by trainbench resumes the same way.
  if (!world && a.nproc_per_node > 0) {
    std::vector<std::string> argv = {"trainbench", "run"};
    for (auto& token : given.tokens_without({})) argv.push_back(std::move(token));
    if (!given.has("--nproc-per-node")) {
      argv.push_back("--nproc-per-node");
      argv.push_back(std::to_string(a.nproc_per_node));
    }
    return launch_ranks({.nproc = a.nproc_per_node, .argv = argv}, err);
  }
  if (a.matrix.empty()) a.matrix = previous.matrix_file;
  TB_CHECK_INPUT(!a.matrix.empty(), results_path, "matrix.file",
                 "empty; name the matrix: trainbench run MATRIX --resume ", dir);
  MatrixSpec spec;
  RunOptions options;
  ConsoleProgress console(out, a.progress.value_or(Detail::normal));
  load_for_run(a, spec, options, console);
  options.world = world;

  // The run's recorded --shard is among its arguments; another one given now would mix shards.
  const auto recorded = recorded_shard(previous, results_path);
  TB_CHECK_INPUT(
      (recorded ? std::optional<Shard>(recorded->shard) : std::nullopt) == options.shard, "command line", "--shard",
      recorded ? dir + " holds shard " + to_string(recorded->shard) + " of its matrix; resume it as that shard"
               : dir + " holds an unsharded run; resume it without --shard");
  const auto to_measure = shard_scenarios(scenarios_as_run(spec, previous), options.shard.value_or(Shard{}));
  const auto environment = capture_environment({}, spec.defaults.seed);
  const auto refusals = resume_refusals(previous, scenarios_digest(to_measure), environment);
  for (const auto& why : refusals) {
    if (force) out << "trainbench: warning: resuming anyway (--force): " << why << "\n";
    else err << "trainbench run: cannot resume: " << results_path << ": " << why << "\n";
  }
  if (!refusals.empty() && !force) {
    err << "trainbench run: pass --force to resume anyway\n";
    return as_int(ExitCode::bad_input);
  }
  if (std::none_of(previous.scenarios.begin(), previous.scenarios.end(),
                   [](const ScenarioResult& s) { return needs_rerun(s); }) &&
      previous.scenarios.size() == to_measure.size()) {
    out << "trainbench: nothing to resume in " << dir << ": every scenario is ok or skipped\n";
    return as_int(ExitCode::ok);
  }
  options.out_dir = dir;
  options.run_id = previous.run_id;
  ensure_writable_dir(options.out_dir);
  const RunFolderLock folder_lock(options.out_dir, "trainbench run --resume " + dir);
  install_interrupt_handlers();
  const RunResult run = resume_matrix(spec, std::move(previous), options,
                                      ResumeRecord{environment.value("started_at", std::string()), refusals});
  return run_exit_code(run, options.out_dir, err);
}

// The run whose results.json `dir` holds: "run 20261204-...-quick (matrix quick, finished)",
// and whether it still has scenarios to measure; nullopt when there is none.
struct RunInFolder {
  std::string what;
  bool unfinished = false;
};
std::optional<RunInFolder> run_in_folder(const std::string& dir) {
  const auto path = std::filesystem::path(dir) / "results.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    const RunResult run = load_results(path.string());
    const bool unfinished =
        std::any_of(run.scenarios.begin(), run.scenarios.end(), [](const ScenarioResult& s) { return needs_rerun(s); });
    return RunInFolder{"run " + run.run_id + " (matrix " + (run.matrix_name.empty() ? "-" : run.matrix_name) + ", " +
                           (unfinished ? "not finished" : "finished") + ")",
                       unfinished};
  } catch (const std::exception&) {
    return RunInFolder{"a results.json", false};  // unreadable, still not ours to replace
  }
}

// Tells a data-parallel run's other ranks to stop waiting when rank 0 returns, whatever way.
struct FollowerRelease {
  std::shared_ptr<dist::World> world;
  ~FollowerRelease() {
    if (!world) return;
    try {
      release_followers(*world);
    } catch (const std::exception&) {
      // The store went with the other ranks.
    }
  }
};

// Set in the environment of a supervised run's child when it was started afresh (not forked).
constexpr const char* kSupervisedChildVariable = "TRAINBENCH_SUPERVISED_CHILD";

int run(const ParsedArgs& p, std::ostream& out, std::ostream& err);

// The run's process crashed (runner/crash_supervisor.hpp): finish the matrix from what it saved,
// each scenario in its own worker, so the crash recurs in one worker only and that scenario is
// "crashed" with its signal and last words. Nothing measured before the crash is lost: the
// resume keeps every finished scenario.
int finish_isolated(const ParsedArgs& p, const std::string& out_dir, const ChildExit& end, std::ostream& out,
                    std::ostream& err) {
  if (end.hung_after_s > 0)
    err << "trainbench: the run's process showed no progress for " << end.hung_after_s
        << " s (the matrix's hang_timeout_s) and was killed: a hang inside LibTorch, a model or a dataset; what it "
           "saved is kept, and the rest is measured with each scenario in its own process (--isolate), so the hang "
           "ends one scenario\n";
  else
    err << "trainbench: the run's process ended with " << end.describe()
        << " (a crash inside LibTorch, a model or a dataset); what it saved is kept, and the rest is measured with "
           "each scenario in its own process (--isolate), so the crash ends one scenario\n";
  std::vector<std::string> tokens;
  if (std::filesystem::exists(std::filesystem::path(out_dir) / "results.json")) {
    tokens = {"--resume", out_dir, "--isolate"};
  } else {
    tokens = p.tokens_without({"--out", "--force"});
    tokens.insert(tokens.end(), {"--out", out_dir, "--isolate"});
    if (run_in_folder(out_dir)) tokens.push_back("--force");
  }
  return run(parse_arguments(run_command().spec, tokens), out, err);
}

int run(const ParsedArgs& p, std::ostream& out, std::ostream& err) {
  // One rank of several (started by --nproc-per-node, torchrun or srun): join the others. Rank 0
  // runs the matrix; every other rank follows it (runner/torch/rank_protocol.hpp).
  std::shared_ptr<dist::World> world;
  if (const auto env = rank_environment(process_environment())) {
    const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(read_run_args(p).dist_timeout_s * 1000));
    world = dist::World::join(*env, timeout);
    if (env->rank != 0) {
      install_interrupt_handlers();  // rank 0 decides when to stop; a Ctrl-C here only waits for it
      RunOptions options;
      options.world = world;
      options.follower = true;
      return follow_leader(options);
    }
  }
  const FollowerRelease release{world};
  if (p.has("--resume")) return resume_run(p, world, out, err);
  // A new results/<run-id> folder never holds a run: --force there is a mistake.
  TB_CHECK_INPUT(!p.has("--force") || p.has("--out"), "command line", "--force",
                 "only goes with --resume DIR or --out DIR");
  RunArgs a = read_run_args(p);
  if (a.matrix.empty()) a.matrix = default_matrix();
  MatrixSpec spec;
  RunOptions options;
  ConsoleProgress console(out, a.progress.value_or(Detail::normal));
  load_for_run(a, spec, options, console);
  if (!world && a.nproc_per_node > 0) {
    // This node's ranks, each running this same command (the matrix was checked above).
    std::vector<std::string> argv = {"trainbench", "run"};
    for (auto& token : p.tokens_without({})) argv.push_back(std::move(token));
    return launch_ranks({.nproc = a.nproc_per_node, .argv = argv}, err);
  }
  options.world = world;
  TB_CHECK_INPUT(!(options.isolate && world), a.matrix, "isolate",
                 "--isolate cannot run with several ranks (run --no-isolate)");
  options.out_dir = a.out_dir;
  // Recorded in results.json; `run --resume` reads it back through this same option table.
  options.command_line = {"trainbench", "run"};
  for (auto& token : p.tokens_without({})) options.command_line.push_back(std::move(token));
  options.run_id = make_run_id(spec);
  if (options.out_dir.empty()) options.out_dir = "results/" + options.run_id;
  ensure_writable_dir(options.out_dir);  // OutputError (exit 5) now, not after the first scenario
  const auto measure = [&] {
    const RunFolderLock folder_lock(options.out_dir, command_text(options.command_line));
    if (const auto previous = run_in_folder(options.out_dir)) {
      // Nothing measured is replaced by accident: a second run into the same --out is refused.
      TB_CHECK_INPUT(p.has("--force"), "command line", "--out", options.out_dir, " holds ", previous->what,
                     ": nothing was run; ",
                     previous->unfinished ? "finish it with trainbench run --resume " + options.out_dir + ", " : "",
                     "give another --out, or --force to replace it");
      out << "trainbench: replacing " << previous->what << " in " << options.out_dir << " (--force)\n";
    }
    install_interrupt_handlers();  // Ctrl-C from here on saves what was measured
    const RunResult result = run_matrix(spec, options);
    return run_exit_code(result, options.out_dir, err);
  };
  // Isolated scenarios and data-parallel ranks are contained already; the child of a supervised
  // run is not supervised again.
  if (options.isolate || world || std::getenv(kSupervisedChildVariable) != nullptr) {
    set_liveness_fd_from_environment();  // a supervised child started afresh tells its parent it is alive
    return measure();
  }
  std::optional<ChildExit> end;
  if (single_threaded()) {
    const SupervisedRun supervised = run_supervised(measure, options.hang_timeout_s);
    if (!supervised.child_exit) return supervised.body_code;  // the child: the run itself
    end = supervised.child_exit;
  } else {
    // Threads already (a CUDA runtime's): fork() would copy only this one, so start afresh.
    std::vector<std::string> argv = {"/proc/self/exe", "run"};
    for (auto& token : p.tokens_without({"--out"})) argv.push_back(std::move(token));
    argv.insert(argv.end(), {"--out", options.out_dir});
    end = spawn_supervised(argv, {std::string(kSupervisedChildVariable) + "=1"}, options.hang_timeout_s);
  }
  if (end->exited) return end->code;
  // Stopped from outside: end as the child did. A hang is a crash that did not end the process.
  if (!is_crash_signal(end->signal) && end->hung_after_s == 0) end_like_child(end->signal);
  return finish_isolated(p, options.out_dir, *end, out, err);
}

}  // namespace

const Command& run_command() {
  static const Command command{
      {.name = "run",
       .summary = "run a scenario matrix",
       .synopses = {"[MATRIX] [options]", "--resume DIR [MATRIX] [--force] [options]"},
       .description = "Runs a scenario matrix (default scenarios/quick.json); results in DIR (default\n"
                      "results/<run-id>/): results.json, reports, traces. Ctrl-C (or SIGTERM) stops it cleanly\n"
                      "between steps and saves what finished; a second one stops it at once.\n"
                      "With --resume, finishes an interrupted run: measures again the scenarios of\n"
                      "DIR/results.json that are not ok or skipped, merged into the same results, with the\n"
                      "run's own options (those given now win); refused when the matrix or the hardware\n"
                      "changed, unless --force.\n"
                      "With --shard I/N, measures a deterministic 1/N of the matrix (docs/large-runs.md),\n"
                      "e.g. one shard per Slurm array task; trainbench merge combines the shards' results.\n",
       .positionals = {kMatrixPositional},
       .options = {kOutOption,
                   {"--format", "LIST", "reports to write: md,csv,html,gbench (default all) or none"},
                   kSetOption,
                   {"--profile", "", "profile every scenario (as the matrix's profile.enabled: true)"},
                   {"--no-profile", "", "profile no scenario"},
                   kMemoryBudgetOption,
                   {"--history", "DB",
                    "history database to record the run in (default: $TRAINBENCH_HISTORY,\n"
                    "else ~/.local/share/trainbench/history.sqlite; docs/results-format.md#history)"},
                   {"--no-history", "", "do not record the run"},
                   {"--commit", "SHA",
                    "the commit of the code under test (default: the git repository holding the\n"
                    "matrix, else $GITHUB_SHA, $CI_COMMIT_SHA and the like)"},
                   {"--label", "TEXT", "a label for this run in the history, e.g. nightly or pr-123"},
                   {"--isolate", "",
                    "each scenario in its own process, so a crash (segfault, abort) is\n"
                    "that scenario's status \"crashed\""},
                   {"--no-isolate", "", "all scenarios in this process (overrides the matrix's \"isolate\")"},
                   {"--shard", "I/N",
                    "measure only shard I of N of the matrix (0-based: I = 0 .. N-1; every scenario\n"
                    "is in exactly one shard); combine the shards with trainbench merge"},
                   {"--resume", "DIR", "finish the interrupted run saved in DIR"},
                   {"--force", "",
                    "with --resume: resume even when the matrix or the hardware changed;\n"
                    "without: run into an --out folder that holds a run, replacing its results"},
                   {"--nproc-per-node", "N",
                    "start N ranks on this node for data-parallel scenarios (axes.world_size);\n"
                    "under torchrun or srun the launcher starts them instead"},
                   {"--dist-timeout", "SECONDS",
                    "give up on a rank that does not answer a collective within SECONDS (default 300)"},
                   kQuietOption,
                   kVerboseOption},
       .epilogue = "exit codes: 0 ok; 1 a scenario failed, ran out of memory, diverged or crashed; 2 bad input,\n"
                   "or --out in use by another run or holding one (without --force; nothing ran); 5 an output\n"
                   "could not be written; 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (finish it with\n"
                   "run --resume DIR)\n"},
      run};
  return command;
}

}  // namespace tb::cli
