// A scenario's measured energy (extra.energy, measure/energy_result.hpp) and the projection's
// energy figures as the reports print them.
#pragma once
#include <string>
#include <vector>

#include <trainbench/capacity/projection.hpp>
#include <trainbench/results/results.hpp>

namespace tb::report {

// A table cell, three significant digits: "2.5 J/step, 25.6 samples/J"; "n/a" when not measured (see energy_reason).
std::string energy_cell(const ScenarioResult& s);

// Why there is no energy figure ("no /sys/class/powercap/intel-rapl:* (...)"), "" when there is
// one; "not recorded" for results from before energy was measured.
std::string energy_reason(const ScenarioResult& s);

// One line: "energy: 2.5 J/step, 25.6 samples/J (rapl: CPU packages (whole machine, every
// process))" or "energy: n/a (REASON)".
std::string energy_line(const ScenarioResult& s);

// The run's energy as the text reports list it: one line per measured scenario
// ("id: 2.5 J/step, 25.6 samples/J"), or, when none was measured, one line with the reason
// ("n/a: no /sys/class/powercap/intel-rapl:* (...)"); empty for a run with no measured scenario
// or with results from before energy was recorded.
std::vector<std::string> energy_lines(const RunResult& run);

// The projection's energy: "0.312 kWh (measured), cost 0.0781 at 0.25/kWh"; "" without one.
std::string projected_energy(const capacity::Projection& p);

}  // namespace tb::report
