// One side of an A/B session measured by several worker processes in turn (`trainbench ab`
// starts a fresh pair of workers every few rounds): their results become one run whose
// segments come from every process, so that the paired interval over rounds contains the
// differences between processes of one build (memory layout, CPU placement: up to 13% between
// two processes of the same binary on this project's VM), not only the noise inside one.
#pragma once
#include <vector>

#include <trainbench/results/results.hpp>

namespace tb {

// Merges `parts` (each the results of one process, same matrix) scenario by scenario, matched by
// scenario_key, in the order first seen. A merged scenario has every part's segments and steps
// (in round order), its typical step time and interval recomputed from all segments, samples/s
// and tokens/s rescaled to it, measured and warm-up steps and wall time summed, and its
// disturbance marked contended when any part was. Phases, memory, loss curve and the other
// details are the first part's. A scenario that was not ok in some part takes that part's status
// and message (the first such part). The run-level fields are the first part's.
// std::invalid_argument when `parts` is empty.
RunResult merge_process_parts(const std::vector<RunResult>& parts);

}  // namespace tb
