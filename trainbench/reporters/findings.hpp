// The answers before the tables: what each setting does (averaged over the others), the fastest
// configuration per workload, and what limits each scenario. One list of sentences that the
// console, Markdown and HTML reporters print first, each in its own markup.
#pragma once
#include <string>
#include <vector>

#include <trainbench/measure/stats.hpp>
#include <trainbench/results/results.hpp>

namespace tb::report {

struct FindingGroup {
  std::string heading;             // "Effect of each setting", "Fastest configuration", "Bottlenecks"
  std::vector<std::string> lines;  // plain text sentences
};

// Empty groups are left out; a run with no measured scenario has no findings.
std::vector<FindingGroup> findings(const RunResult& run);

// "1.71x [1.63, 1.87] faster", "0.95x [no CI] noisy": a ratio interval and its verdict.
std::string ratio_with_verdict(const stats::RatioInterval& r, const std::string& verdict);

// The bottleneck column: "data", "compute", "launch", "comm", "copy"; "-" when unknown.
std::string bottleneck_cell(const ScenarioResult& s);

}  // namespace tb::report
