// How a scenario ended, as results.json names it.
#pragma once
#include <string>

namespace tb {

// diverged: the loss went non-finite or exploded (see divergence.hpp); its speed figures are
// kept but never enter speedups, summaries or comparisons.
// interrupted: the run was stopped (SIGINT/SIGTERM) before this scenario finished; the segments
// measured so far are kept as they were, and `run --resume` measures it again from the start.
// crashed: with `run --isolate`, the scenario's worker process died (a signal such as SIGSEGV or
// SIGABRT, or an unexpected exit); the message has how and the tail of its stderr
// (isolated_table.hpp). New values go at the end: results files store the name, but the order is
// the counters' order everywhere.
enum class ScenarioStatus { ok, skipped, failed, oom, diverged, interrupted, crashed };
inline constexpr int kScenarioStatusCount = 7;
// Whether a scenario that ended so has measured step times: ok, and diverged (kept, labelled).
inline bool has_step_times(ScenarioStatus s) { return s == ScenarioStatus::ok || s == ScenarioStatus::diverged; }
const char* to_string(ScenarioStatus s);
ScenarioStatus parse_status(const std::string& s);

}  // namespace tb
