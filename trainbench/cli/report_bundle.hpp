// `trainbench report RESULTS --bundle DIR`: one self-contained folder to attach to a CI run or
// send to a colleague: results.json, every trace it references, and the reports rendered there,
// so every link is relative to the folder and works wherever it is unpacked.
#pragma once
#include <string>
#include <vector>

#include <trainbench/results/results.hpp>

namespace tb::cli {

// Copies results.json and the traces of `run` (paths relative to `results_dir`) into `dir`,
// keeping their relative paths. Returns the traces results.json names that do not exist (the
// reports then say "missing"). OutputError naming the file when one cannot be written; InputError
// when `dir` is the results folder itself (a bundle must be a copy).
std::vector<std::string> bundle_run(const RunResult& run, const std::string& results_dir, const std::string& dir);

}  // namespace tb::cli
