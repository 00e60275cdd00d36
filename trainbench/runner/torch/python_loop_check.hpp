// A matrix's Python loops, checked before anything is measured: a file that does not import, a
// function that is not there, or one that returns the wrong things is the matrix's error (exit
// 2, naming python.file or python.function), not a failed scenario found half an hour later.
#pragma once
#include <string>
#include <vector>

#include <trainbench/matrix/scenario.hpp>

namespace tb {

// Imports each distinct python.file / python.function of `scenarios` once in a worker's check
// mode and calls the function with the first such scenario's settings. InputError naming
// `matrix_file` and the field when it is wrong; an exception the function raises for other
// reasons is left to that scenario's own run (it may be the scenario's settings).
void check_python_loops(const std::vector<ScenarioParams>& scenarios, const std::string& matrix_file);

}  // namespace tb
