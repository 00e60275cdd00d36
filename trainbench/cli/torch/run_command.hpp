// The sub-commands that need LibTorch: run, list, capacity, models. Each is a Command (its
// option table and handler) that cli/torch/main.cpp dispatches to.
#pragma once
#include <trainbench/cli/command.hpp>

namespace tb::cli {

// trainbench run [MATRIX] [options]; run --resume DIR [MATRIX] [--force] [options] finishes the
// run saved in DIR with the run's own options (those given now win).
const Command& run_command();
// trainbench list MATRIX [--set PATH=JSON]...
const Command& list_command();
// trainbench capacity MATRIX [--memory-budget SIZE] [--out DIR] [--set PATH=JSON]...
const Command& capacity_command();
// trainbench models: the registered models and datasets.
const Command& models_command();

}  // namespace tb::cli
