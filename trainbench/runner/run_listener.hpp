// What a run tells whoever watches it while it goes: the console (trainbench/cli/console_progress.hpp), a
// test, or a user's own dashboard. The harness calls these on its own thread between segments,
// never inside a timed step, so an implementation may format and print freely.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <trainbench/results/results.hpp>

namespace tb {

// What is about to be measured.
struct RunPlan {
  std::string matrix;  // the matrix's name
  std::string run_id;
  std::string device;          // "cpu" or the GPU's name
  std::string out_dir;         // "" : results are not saved
  std::size_t to_measure = 0;  // scenarios this run measures
  std::size_t in_matrix = 0;   // scenarios of the matrix (more than to_measure when resuming)
  int rounds = 1;              // planned rounds (scenarios past their target get extra ones)
  bool interleave = true;      // rounds interleave the scenarios (else each runs to its end)
  bool resume = false;         // run --resume: only the unfinished scenarios are measured
  std::string shard;           // run --shard: "i/n" (to_measure of in_matrix are this shard's)
};

class RunListener {
 public:
  virtual ~RunListener() = default;

  virtual void run_started(const RunPlan&) {}
  // Interleaved schedules: round `round` (0-based) of every active scenario is done; rounds at
  // or past `planned` are extra rounds for scenarios still wider than their target.
  // `still_going`: the ids of the scenarios that measure another round.
  virtual void round_finished(int /*round*/, int /*planned*/, const std::vector<std::string>& /*still_going*/) {}
  // A scenario finished (any status); `done` counts finished scenarios, 1..total.
  virtual void scenario_finished(std::size_t /*done*/, std::size_t /*total*/, const ScenarioResult&) {}
  // Results, reports and history are written (or failed: warnings came first). `results_path`
  // is "" when results.json was not saved.
  virtual void run_finished(const RunResult&, const std::string& /*results_path*/) {}
  // Free-form progress (the capacity search's probes, the matmul peaks, where reports went),
  // written as is; a line ends with '\n'.
  virtual void message(std::string_view /*text*/) {}
  // Something the user should know that did not stop the run ("reports failed: disk full").
  virtual void warning(std::string_view /*text*/) {}
  // A problem with one scenario's numbers found after it ran (e.g. MFU impossible).
  virtual void error(std::string_view /*text*/) {}
};

}  // namespace tb
