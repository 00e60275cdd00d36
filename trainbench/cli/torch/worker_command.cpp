#include <trainbench/cli/torch/worker_command.hpp>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include <trainbench/capacity/byte_size.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/matrix/isolation_settings.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/runner/torch/environment.hpp>
#include <trainbench/runner/torch/run_finish.hpp>
#include <trainbench/runner/torch/runner.hpp>
#include <trainbench/runner/torch/scenario_table.hpp>
#include <trainbench/runner/worker_protocol.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

struct WorkerArgs {
  std::string matrix, out_dir, session, side;
  std::vector<std::string> sets;
  std::int64_t memory_budget = 0;
  bool isolate = false;                   // one scenario of `run --isolate`
  std::optional<bool> profile;            // --profile / --no-profile, as given to `run`
  std::optional<long long> run_start_ns;  // the parent run's start on the steady clock
};

WorkerArgs read_worker_args(const ParsedArgs& p) {
  WorkerArgs a;
  a.matrix = p.positional(0);
  a.out_dir = p.value_or("--out", "");
  a.session = p.value_or("--ab-session", "");
  a.side = p.value_or("--ab-side", "");
  a.sets = p.values("--set");
  if (const auto size = p.value("--memory-budget"))
    a.memory_budget = capacity::parse_byte_size(*size, "--memory-budget");
  a.isolate = p.has("--isolate");
  if (const auto flag = p.last_of({"--profile", "--no-profile"}); !flag.empty()) a.profile = flag == "--profile";
  if (const auto v = p.value("--run-start-ns")) {
    char* end = nullptr;
    errno = 0;
    const long long ns = std::strtoll(v->c_str(), &end, 10);
    TB_CHECK_INPUT(!v->empty() && *end == '\0' && errno == 0 && ns >= 0, "command line", "--run-start-ns",
                   "must be a non-negative integer, got '", *v, "'");
    a.run_start_ns = ns;
  }
  TB_CHECK_INPUT(!a.matrix.empty(), "command line", "MATRIX", "trainbench worker needs a matrix file");
  if (a.isolate) return a;
  TB_CHECK_INPUT(!a.out_dir.empty(), "command line", "--out", "is required");
  TB_CHECK_INPUT(!a.session.empty(), "command line", "--ab-session", "is required");
  TB_CHECK_INPUT(a.side == "old" || a.side == "new", "command line", "--ab-side", "must be old or new, got '", a.side,
                 "'");
  return a;
}

// The protocol's channel: the original stdout, taken away from everything else in the process.
class ReplyChannel {
 public:
  ReplyChannel() {
    const int fd = ::dup(STDOUT_FILENO);
    file_ = fd >= 0 ? ::fdopen(fd, "w") : nullptr;
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    std::cout.flush();
  }
  ~ReplyChannel() {
    if (file_) std::fclose(file_);
  }
  void send(const nlohmann::json& j) {
    if (!file_) return;
    const std::string line = j.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

// A matrix the worker refuses is said on the protocol channel (and exits 2): the parent reads
// only that.
int worker(const ParsedArgs& args, std::ostream&, std::ostream&) {
  ReplyChannel reply;
  WorkerArgs a;
  MatrixSpec spec;
  IsolationSettings isolation;
  try {
    a = read_worker_args(args);
    auto loaded = load_matrix_with_isolation(a.matrix, default_parse_options(), a.sets);
    spec = std::move(loaded.spec);
    isolation = std::move(loaded.isolation);
    TB_CHECK_INPUT(!spec.batch_search, a.matrix, "axes.batch",
                   "\"max\" (a capacity search) is not supported in an A/B session or with "
                   "--isolate; give the batch");
  } catch (const InputError& e) {
    reply.send(WorkerRefusal{e.what(), as_int(ExitCode::bad_input)});
    return as_int(ExitCode::bad_input);
  }
  using Clock = std::chrono::steady_clock;
  const auto run_start =
      a.run_start_ns
          ? Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(*a.run_start_ns)))
          : Clock::now();
  RunOptions options;
  options.out_dir = a.out_dir;
  options.memory_budget_bytes = a.memory_budget;
  options.command_line = {"trainbench", "worker"};
  for (auto& token : args.tokens_without({})) options.command_line.push_back(std::move(token));
  options.run_id = a.isolate ? "isolated" : a.session + "-" + a.side;
  if (isolation.test_crash) options.test_hook = make_test_crash_hook(*isolation.test_crash);

  RunResult run;
  run.run_id = options.run_id;
  run.matrix_name = spec.name;
  run.matrix_file = spec.file;
  // An isolated worker never writes results (the parent `run` does): no manifest to capture.
  if (!a.isolate) {
    run.environment = capture_environment(options.command_line, spec.defaults.seed);
    run.provenance.ab_session = AbSessionProvenance{a.session, a.side, std::nullopt};
  }
  auto scenarios = expand(spec);
  run.matrix_digest = scenarios_digest(scenarios);
  const auto baseline = choose_baseline(spec, scenarios);
  if (!scenarios.empty()) run.baseline_id = scenario_id(scenarios[baseline.index]);
  const std::string results_path = (std::filesystem::path(a.out_dir) / "results.json").string();

  WorkerHello hello;
  for (const auto& p : scenarios) hello.scenarios.push_back({scenario_id(p), scenario_key(p)});
  hello.digest = run.matrix_digest;
  hello.rounds = spec.defaults.stopping.rounds;
  hello.max_rounds = spec.defaults.stopping.max_rounds;
  hello.seed = spec.defaults.seed;
  reply.send(hello);

  for (auto& p : scenarios)  // after the digest, as in run_matrix: profiling is not part of it
    if (a.profile) p.profile.enabled = *a.profile;
  ScenarioTable table(scenarios, options, run_start, current_rss_bytes(), nullptr);
  std::string line;
  while (std::getline(std::cin, line)) {
    WorkerRequest request;
    try {
      request = parse_request(nlohmann::json::parse(line));
    } catch (const std::exception& e) {  // malformed JSON, or not a request
      reply.send(WorkerRefusal{std::string("not understood: ") + e.what(), std::nullopt});
      continue;
    }
    if (const auto* segment = std::get_if<SegmentRequest>(&request)) {
      const std::size_t i = segment->scenario;
      const bool measures = i < table.size() && table.active(i);
      if (measures) table.segment(i, segment->round);
      SegmentReply answer;
      answer.active = i < table.size() && table.active(i);
      answer.converged = i < table.size() && table.converged(i);
      if (measures && answer.active) {
        auto so_far = table.snapshot_of(i);
        if (so_far && !so_far->segments.empty() && so_far->segments.back().round == segment->round) {
          answer.segment = so_far->segments.back();
          answer.contention = scenarios[i].contention;
        }
        if (segment->snapshot) answer.snapshot = std::move(so_far);
      }
      reply.send(answer);
    } else if (const auto* finish_one = std::get_if<FinishOneRequest>(&request)) {
      const std::size_t i = finish_one->scenario;
      if (i >= table.size()) {
        reply.send(WorkerRefusal{"no scenario " + std::to_string(i), std::nullopt});
        continue;
      }
      table.finish(i);
      if (auto result = table.snapshot_of(i)) reply.send(FinishOneReply{std::move(*result)});
      else reply.send(WorkerRefusal{"scenario " + std::to_string(i) + " was never measured", std::nullopt});
      if (a.isolate) return as_int(ExitCode::ok);  // its one scenario is done
    } else if (a.isolate) {                        // save / finish would overwrite the parent's results.json
      reply.send(WorkerRefusal{"a --isolate worker only measures and finishes scenarios", std::nullopt});
    } else if (std::holds_alternative<SaveRequest>(request)) {
      run.scenarios = table.snapshot();
      save_results(run, results_path);
      reply.send(SavedReply{});
    } else if (std::holds_alternative<FinishRequest>(request)) {
      table.finish_all();
      run.scenarios = table.take_results();
      finish_run(run, options);  // speedups within this side, results.json; no reports or history
      reply.send(FinishedReply{results_path});
      for (const auto& s : run.scenarios)
        if (s.status == ScenarioStatus::failed || s.status == ScenarioStatus::oom ||
            s.status == ScenarioStatus::diverged || s.status == ScenarioStatus::crashed)
          return as_int(ExitCode::failure);
      return as_int(ExitCode::ok);
    } else if (const auto* drop = std::get_if<DropRequest>(&request); drop && drop->scenario < table.size()) {
      table.abort(drop->scenario, drop->why);  // no reply: as for the ranks
    }
  }
  return 3;  // the parent went away without finishing
}

}  // namespace

const Command& worker_command() {
  static const Command command{
      {.name = "worker",
       .summary = "one side of `ab`, or one scenario of `run --isolate` (started by them, not by hand)",
       .synopses = {"MATRIX --out DIR --ab-session ID --ab-side old|new [options]",
                    "MATRIX --isolate [--out DIR] [--run-start-ns N] [options]"},
       .description = "Speaks the worker protocol, one JSON object per line on stdout (docs/worker-protocol.md).\n",
       .positionals = {{"MATRIX", "the scenario matrix"}},
       .options = {{"--out", "DIR", "results folder"},
                   {"--ab-session", "ID", "the A/B session's id"},
                   {"--ab-side", "old|new", "which build this worker is"},
                   {"--set", "PATH=JSON", "matrix override", true},
                   {"--memory-budget", "SIZE", "CPU: a scenario whose peak RSS exceeds it is \"oom\""},
                   {"--isolate", "", "measure scenarios for `run --isolate`"},
                   {"--profile", "", "as run --profile"},
                   {"--no-profile", "", "as run --no-profile"},
                   {"--run-start-ns", "N", "the parent run's start on the steady clock"}},
       .epilogue = "exit codes: 0 ok, 1 a scenario failed, 2 bad input, 3 the parent went away\n",
       .hidden = true},
      worker,
      [](const InputError& e, std::ostream& out) {
        out << nlohmann::json(WorkerRefusal{e.what(), as_int(ExitCode::bad_input)}).dump() << std::endl;
      }};
  return command;
}

}  // namespace tb::cli
