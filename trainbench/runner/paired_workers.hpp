// `trainbench ab`'s executor: two builds, OLD and NEW, each a worker process holding the whole
// matrix (worker_protocol.hpp), driven by the same Schedule as every other executor. One segment
// of scenario i is one segment in OLD and one in NEW back to back, in an order that a coin flip
// decides (pair_order_coin), so drift of the machine hits both builds alike inside a round and
// the paired interval of NEW/OLD cancels it. Two processes of one build also differ by themselves
// (memory layout, CPU placement), so by default every round gets a fresh pair of workers: that
// difference then varies from round to round and lands inside the paired interval.
//
// A scenario is active while it is active on both sides, and converged when it is converged on
// both. A session cannot go on past a worker that crashed or refused: PairedSessionError, with
// what is needed to say so.
#pragma once
#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <trainbench/runner/schedule.hpp>
#include <trainbench/runner/sequential_gate.hpp>
#include <trainbench/runner/worker_client.hpp>

namespace tb {

struct PairedWorkersOptions {
  std::string matrix;                                 // the matrix file both sides run
  std::string old_matrix;                             // OLD's own matrix file instead ("" = matrix)
  std::array<std::string, 2> programs;                // OLD's and NEW's trainbench executables
  std::string session;                                // the session id both sides record
  std::string out_dir;                                // DIR: each side's processes write DIR/old/pN, DIR/new/pN
  std::vector<std::string> sets;                      // --set for both sides
  std::array<std::vector<std::string>, 2> side_sets;  // --set for one side only
  std::string memory_budget;                          // passed on as given; empty: none
  int rounds_per_process = 1;                         // a fresh pair every N rounds; 0: one pair throughout
};

// Why a session stopped. `new_side_at_fault`: NEW crashed (a regression of the build under test);
// otherwise OLD crashed, a side refused, or the sides disagree (bad input).
class PairedSessionError : public std::runtime_error {
 public:
  PairedSessionError(const std::string& message, bool new_side_at_fault)
      : std::runtime_error(message), new_side_at_fault_(new_side_at_fault) {}
  bool new_side_at_fault() const noexcept { return new_side_at_fault_; }

 private:
  bool new_side_at_fault_;
};

class PairedWorkerSet final : public SegmentExecutor {
 public:
  static constexpr std::array<const char*, 2> kNames = {"OLD", "NEW"};
  static constexpr std::array<const char*, 2> kFolders = {"old", "new"};

  // Starts the first pair and checks that both expand the matrix into the same scenarios;
  // PairedSessionError when not.
  explicit PairedWorkerSet(PairedWorkersOptions options);
  ~PairedWorkerSet() override;

  // What the first pair said about the matrix.
  const WorkerHello& plan() const { return plan_; }
  // With a gate (ab with --fail-on-regression; nullptr: none): every round's two segments go to
  // it, a scenario is converged when its verdict is settled or its budget spent, and the
  // schedule's rule is the gate's. Set before the schedule starts.
  void judge_with(SequentialGate* gate) { gate_ = gate; }
  // A side whose worker sends no segments back (a trainbench from before sequential verdicts,
  // e.g. an older GOOD build in a bisection): the gate is left out, and the session measures the
  // matrix's rounds (the gate's first look) and is judged on them as `compare` judges.
  bool segments_missing() const { return segments_missing_; }
  // The schedule's rule: with a sequential gate, the gate's (first look, then until settled);
  // otherwise the matrix's rounds, with extra rounds for unconverged scenarios only with one
  // pair for the whole session (with fresh pairs convergence would be judged on one process's
  // segments).
  StoppingRule stopping_rule() const;
  // Each side's per-process results folders, in order.
  const std::vector<std::string>& parts(int side) const { return parts_[side]; }

  std::size_t size() const override { return active_.size(); }
  bool active(std::size_t i) const override { return active_[i]; }
  bool converged(std::size_t i) const override { return gate_ && !segments_missing_ ? gate_->done(i) : converged_[i]; }
  // Every rounds_per_process rounds: the pair so far finishes and a fresh one starts.
  void round_starting(int round) override;
  void segment(std::size_t i, int round) override;
  void finish(std::size_t i) override { active_[i] = false; }  // the workers finish it at the end
  // The current pair finishes every scenario and writes its results.
  void finish_all() override;
  void interrupt_unfinished() override;
  // Both workers write what they measured so far.
  void save();

 private:
  struct Side {
    std::unique_ptr<WorkerClient> worker;
    std::string crash;  // how and when it ended, once it crashed
  };
  void start_pair();
  void end_pair();
  std::string describe(int side) const;  // "NEW worker (build/trainbench)"
  [[noreturn]] void crashed(int side, const std::string& during);
  [[noreturn]] void throw_crash(int side) const;

  PairedWorkersOptions options_;
  std::array<Side, 2> sides_;
  std::array<std::vector<std::string>, 2> parts_;
  WorkerHello plan_;
  std::array<std::string, 2> digests_;  // each side's matrix digest, from its first worker
  std::vector<bool> active_, converged_;
  SequentialGate* gate_ = nullptr;
  bool segments_missing_ = false;
};

}  // namespace tb
