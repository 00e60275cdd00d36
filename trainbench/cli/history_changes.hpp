// trainbench history --changes: change points over the recorded history of every scenario
// (measure/trend_changes.hpp), newest first, and the CI gate on them (--fail-on-change).
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include <trainbench/measure/trend_changes.hpp>
#include <trainbench/results/history.hpp>

namespace tb::cli {

struct ChangesRequest {
  std::string matrix;    // only scenarios recorded in runs of this matrix ("" = all)
  std::string scenario;  // only this scenario ("" = all)
  TrendMetric metric = TrendMetric::step_time;
  int limit = 0;  // the newest N runs of each scenario (0 = all)
  // The gate: a regression of at least fail_pct percent whose new level starts within the
  // newest `window` runs of its scenario fails (exit 1). nullopt: list only.
  std::optional<double> fail_pct;
  int window = 10;
  std::string junit_path;  // also write JUnit XML there (one test case per scenario); "" = no
};

// Prints the change points and returns the exit code (0, or 1 when the gate fails). InputError
// when nothing matches the request.
int print_changes(const History& history, const ChangesRequest& request, std::ostream& out);

}  // namespace tb::cli
