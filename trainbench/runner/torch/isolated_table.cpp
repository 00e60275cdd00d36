#include <trainbench/runner/torch/isolated_table.hpp>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <utility>

#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/torch/scenario_table.hpp>
#include <trainbench/support/file_tail.hpp>

namespace tb {

namespace {

// Waiting for a worker's reply: stop on Ctrl-C, or when it has been silent past the hang
// timeout (a deadlock, a loop on a corrupted heap: a hang is a crash that does not end the
// process). `hung` says which.
struct ReplyWait {
  std::chrono::steady_clock::time_point deadline;
  bool hung = false;
  explicit ReplyWait(double hang_timeout_s)
      : deadline(std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(hang_timeout_s > 0 ? hang_timeout_s : 1e9))) {}
  bool operator()() {
    if (interrupted()) return true;
    hung = std::chrono::steady_clock::now() > deadline;
    return hung;
  }
};

std::string this_executable() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "trainbench";  // looked up on PATH
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace

IsolatedScenarioTable::IsolatedScenarioTable(std::vector<ScenarioParams> scenarios,
                                             std::vector<std::size_t> matrix_index, std::string matrix_digest,
                                             std::string matrix_file, const RunOptions& options,
                                             Clock::time_point run_start, RunListener* listener)
    : slots_(scenarios.size()),
      matrix_file_(std::move(matrix_file)),
      options_(options),
      run_start_(run_start),
      listener_(listener),
      program_(options.worker_program.empty() ? this_executable() : options.worker_program),
      digest_(std::move(matrix_digest)) {
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    slots_[i].params = std::move(scenarios[i]);
    slots_[i].id = scenario_id(slots_[i].params);
    slots_[i].matrix_index = matrix_index.at(i);
  }
  // A worker that dies must show up as a failed write, not kill this process with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
}

IsolatedScenarioTable::~IsolatedScenarioTable() {
  for (auto& slot : slots_) {
    slot.worker.reset();  // kills and reaps a worker still running
    if (!slot.stderr_path.empty()) ::unlink(slot.stderr_path.c_str());
  }
}

bool IsolatedScenarioTable::start(std::size_t i) {
  Slot& slot = slots_[i];
  // The worker dates its segments from this run's start: steady_clock is CLOCK_MONOTONIC, one
  // clock for every process on the machine.
  const auto run_start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(run_start_.time_since_epoch()).count();
  std::vector<std::string> argv = {program_,    "worker",         matrix_file_,
                                   "--isolate", "--run-start-ns", std::to_string(run_start_ns)};
  if (!options_.out_dir.empty()) argv.insert(argv.end(), {"--out", options_.out_dir});
  for (const auto& set : options_.set_overrides) argv.insert(argv.end(), {"--set", set});
  if (options_.memory_budget_bytes > 0)
    argv.insert(argv.end(), {"--memory-budget", std::to_string(options_.memory_budget_bytes)});
  if (options_.profile) argv.push_back(*options_.profile ? "--profile" : "--no-profile");

  const std::filesystem::path dir =
      options_.out_dir.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(options_.out_dir);
  slot.stderr_path = (dir / (".worker-" + std::to_string(i) + "-" + std::to_string(::getpid()) + ".stderr")).string();
  ChildOptions child_options;
  child_options.stderr_path = slot.stderr_path;
  child_options.detach_from_terminal_signals = true;
  try {
    slot.worker = std::make_unique<WorkerClient>(argv, child_options);
    slot.worker->await_hello();
  } catch (const WorkerStartError& e) {
    switch (e.kind()) {
      case WorkerStartError::Kind::silent: crashed(i, "start-up", e.exit()); return false;
      case WorkerStartError::Kind::refused:  // the matrix file changed since this run read it?
        failed(i, std::string("its worker refused the matrix: ") + e.what());
        return false;
      default: failed(i, e.what()); return false;
    }
  }
  const auto& listed = slot.worker->hello().scenarios;
  const std::size_t k = slot.matrix_index;
  const bool same = slot.worker->hello().digest == digest_ && k < listed.size() && listed[k].id == slot.id;
  if (!same) {
    failed(i, "its worker expanded " + matrix_file_ + " into other scenarios (was the file changed during the run?)");
    return false;
  }
  return true;
}

void IsolatedScenarioTable::crashed(std::size_t i, const std::string& during) {
  crashed(i, during, slots_[i].worker->wait());
}

void IsolatedScenarioTable::crashed(std::size_t i, const std::string& during, const ChildExit& how) {
  Slot& slot = slots_[i];
  ScenarioResult r;
  r.status = ScenarioStatus::crashed;
  r.message = "its worker process ended with " + how.describe() + " during " + during;
  const std::string tail = read_file_tail(slot.stderr_path);
  if (!tail.empty()) r.message += "; the end of its stderr:\n" + tail;
  conclude(i, std::move(r), /*stderr_quoted=*/true);
}

void IsolatedScenarioTable::hung(std::size_t i, const std::string& during) {
  slots_[i].worker.reset();  // kills (SIGKILL) and reaps it: a hung worker never reads its end of input
  ChildExit how;
  how.signal = SIGKILL;
  how.hung_after_s = options_.hang_timeout_s;
  crashed(i, during, how);
}

void IsolatedScenarioTable::failed(std::size_t i, const std::string& why) {
  ScenarioResult r;
  r.status = ScenarioStatus::failed;
  r.message = "--isolate: " + why;
  conclude(i, std::move(r));
}

void IsolatedScenarioTable::conclude(std::size_t i, ScenarioResult result, bool stderr_quoted) {
  Slot& slot = slots_[i];
  result.id = slot.id;
  result.params = slot.params;
  if (slot.worker) {
    slot.worker->wait();  // done with its one scenario, it has exited or exits at end of input
    slot.worker.reset();
  }
  if (!slot.stderr_path.empty()) {
    // What a worker that did not crash said on stderr (LibTorch warnings) would have reached the
    // terminal without isolation: pass on its end.
    if (!stderr_quoted) {
      const std::string tail = read_file_tail(slot.stderr_path);
      if (!tail.empty()) std::cerr << "trainbench: the worker of " << slot.id << " wrote:\n" << tail << "\n";
    }
    ::unlink(slot.stderr_path.c_str());
  }
  slot.snapshot.reset();
  slot.result = std::move(result);
  if (listener_) listener_->scenario_finished(++finished_, slots_.size(), *slot.result);
}

void IsolatedScenarioTable::segment(std::size_t i, int round) {
  Slot& slot = slots_[i];
  if (slot.result || (!slot.worker && !start(i))) return;
  ReplyWait wait(options_.hang_timeout_s);
  auto reply = slot.worker->segment({slot.matrix_index, round, /*snapshot=*/true}, std::ref(wait));
  const std::string during =
      "round " + std::to_string(round + 1) + (slot.segments == 0 ? " (its set-up or first segment)" : "");
  if (!reply && wait.hung) return hung(i, during);
  if (!reply && interrupted()) {
    slot.worker.reset();  // kills it: its unfinished segment is dropped, as in-process
    return;               // interrupt_unfinished() records it
  }
  if (!reply) {
    crashed(i, during);
    return;
  }
  ++slot.segments;
  slot.converged = reply->converged;
  if (reply->snapshot) slot.snapshot = std::move(reply->snapshot);
  if (!reply->active) finish(i);  // it failed in the worker: fetch why
}

void IsolatedScenarioTable::finish(std::size_t i) {
  Slot& slot = slots_[i];
  // A scenario never measured (every round skipped it) is still built by its worker, to say why.
  if (slot.result || (!slot.worker && !start(i))) return;
  ReplyWait wait(options_.hang_timeout_s);
  auto reply = slot.worker->finish_one(slot.matrix_index, std::ref(wait));
  const std::string during = "its finish (divergence check, memory budget, profiling pass)";
  if (!reply && wait.hung) return hung(i, during);
  if (!reply && interrupted()) {
    slot.worker.reset();
    return;  // interrupt_unfinished() records it
  }
  if (!reply) {
    crashed(i, during);
    return;
  }
  conclude(i, std::move(reply->result));
}

void IsolatedScenarioTable::interrupt_unfinished() {
  for (auto& slot : slots_) {
    if (slot.result) continue;
    slot.worker.reset();  // kills it
    if (!slot.stderr_path.empty()) ::unlink(slot.stderr_path.c_str());
    // What its worker reported after its last whole segment, if anything.
    slot.result = interrupted_result(std::move(slot.snapshot), slot.params);
    slot.snapshot.reset();
  }
}

std::optional<ScenarioResult> IsolatedScenarioTable::snapshot_of(std::size_t i) const {
  const auto& slot = slots_[i];
  return slot.result ? slot.result : slot.snapshot;
}

std::optional<ScenarioResult> IsolatedScenarioTable::take_result(std::size_t i) {
  return std::exchange(slots_[i].result, std::nullopt);
}

}  // namespace tb
