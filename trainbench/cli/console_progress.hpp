// The console's view of a run (RunListener): the plan, "round 2/6 done, 40 s, ~1 min 20 s left",
// one line per finished scenario ("[3/8] id ... ok  12.10 ms/step [...]"), warnings, and the
// console table at the end. Colour only when asked for (a terminal, and NO_COLOR unset).
// Verbose (run --verbose) adds, per round, the scenarios still going and, per measured scenario,
// a line with its median, 95% interval, stop reason and segment medians.
#pragma once
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include <trainbench/runner/run_listener.hpp>

namespace tb::cli {

enum class Detail { normal, verbose };

class ConsoleProgress final : public RunListener {
 public:
  // Coloured when `out` is standard output, that is a terminal, and NO_COLOR (no-color.org) is
  // unset or empty.
  explicit ConsoleProgress(std::ostream& out, Detail detail = Detail::normal);
  ConsoleProgress(std::ostream& out, bool colour, Detail detail = Detail::normal);

  void run_started(const RunPlan& plan) override;
  void round_finished(int round, int planned, const std::vector<std::string>& still_going) override;
  void scenario_finished(std::size_t done, std::size_t total, const ScenarioResult& r) override;
  void run_finished(const RunResult& run, const std::string& results_path) override;
  void message(std::string_view text) override;
  void warning(std::string_view text) override;
  void error(std::string_view text) override;

 private:
  using Clock = std::chrono::steady_clock;
  double elapsed_s() const;
  std::string paint(std::string_view text, const char* ansi_colour) const;

  std::ostream& out_;
  bool colour_;
  Detail detail_;
  bool interleave_ = true;
  Clock::time_point start_ = Clock::now();
};

// The verbose line of a measured scenario: "median 12.10 ms/step, 95% interval [11.93, 12.27] ms
// (+-1.4%), stop: target_ci, 6 segments: 12.05 12.11 ... ms".
std::string scenario_detail(const ScenarioResult& r);

// "40 s", "3 min 20 s", "2 h 05 min": how long, to a human.
std::string format_duration(double seconds);

// The rest of a job that took `elapsed_s` for `done` of `total` equal parts; 0 when done >= total.
double remaining_s(double elapsed_s, double done, double total);

}  // namespace tb::cli
