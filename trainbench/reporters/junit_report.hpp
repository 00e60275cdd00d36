// JUnit XML for CI systems (GitHub Actions test reporters, GitLab's test report, Jenkins): one
// test case per scenario, in the widely read subset of the format (testsuites > testsuite >
// testcase with failure / skipped, the figures in the message), so a regression shows up where
// a CI shows failed tests.
//
//   compare / ab:      regression or broken in NEW -> failure; contended, without an interval or
//                      on one side only -> skipped ("not judged"); else passed.
//   history --changes: a regression the gate fails -> failure; else passed, the scenario's
//                      change points (if any) in the test case's output.
#pragma once
#include <string>
#include <vector>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/measure/trend_changes.hpp>

namespace tb {

// `suite`: the test suite's name, e.g. "trainbench compare".
std::string junit_from_comparison(const RunComparison& comparison, const std::string& suite);

struct ScenarioChanges {
  std::string scenario_id;
  std::vector<TrendChange> changes;  // oldest first
  std::vector<bool> gated;           // per change: fails the gate
};
std::string junit_from_changes(const std::vector<ScenarioChanges>& scenarios, const std::string& suite);

// Text with &, <, >, " and ' escaped, and characters XML 1.0 forbids replaced by '?'.
std::string xml_escaped(const std::string& text);

}  // namespace tb
