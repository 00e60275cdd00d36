// The one place where a scenario's exception becomes its status, for every pass that runs
// scenarios (the run's tables, the capacity search and its measurements): skipped (a mode the
// device cannot run), oom (CUDA or CPU out of memory, or over the memory budget; the CUDA cache
// is emptied so the next scenario starts clean), failed (anything else). An interruption is not a
// scenario's failure: callers catch Interrupted before calling this.
#pragma once
#include <exception>

#include <trainbench/results/results.hpp>

namespace tb {

void record_failure(ScenarioResult& r, const ScenarioParams& params, std::exception_ptr error);

}  // namespace tb
