// The options and the positional that the commands reading a matrix share (run, list,
// capacity), so each is worded once in every --help.
#pragma once
#include <trainbench/cli/command.hpp>

namespace tb::cli {

inline const Option kSetOption{"--set", "PATH=JSON", "override one matrix value, e.g. --set steps.max=80", true};
inline const Option kOutOption{"--out", "DIR", "results folder (default results/<run-id>/)"};
inline const Option kMemoryBudgetOption{"--memory-budget", "SIZE",
                                        "CPU: a scenario whose peak RSS exceeds SIZE (e.g. 2GiB) is \"oom\""};
inline const Positional kMatrixPositional{"MATRIX", "a scenario matrix (JSON, see docs/writing-a-matrix.md)"};

}  // namespace tb::cli
