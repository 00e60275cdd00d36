// `trainbench list`: the scenarios a matrix expands to, as a plain-text table.
#pragma once
#include <string>
#include <vector>

#include <trainbench/matrix/matrix.hpp>

namespace tb {

// Header lines (matrix name, file, count, baseline) and one row per scenario: index, id, the listed
// fields of scenario_axes() (model, dataset, device, precision, workers, accumulation, micro-batch),
// effective batch. The baseline row
// is marked with '*'; a baseline that matched nothing is noted (the first scenario stands in).
std::string format_scenario_list(const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios);

}  // namespace tb
