// The matrix's settings for how a run executes rather than which scenarios it measures:
// "isolate" (every scenario in its own worker process, as `run --isolate`), "hang_timeout_s" (how
// long the run's process or a scenario's worker may go without progress before it is killed as
// hung) and the test-only "test_crash". parse_matrix validates them with the other keys, so a typo fails before anything
// runs, but they stay out of MatrixSpec and out of the digest: a matrix run isolated or not, with
// or without a planted crash, measures the same scenarios.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/runner/test_crash.hpp>

namespace tb {

// The longest a step, a segment's set-up or a scenario's finish may take by default; a process
// silent longer is hung (a deadlock, a loop on a corrupted heap). Python loops have their own
// (python.timeout_s), the same by default.
inline constexpr double kDefaultHangTimeoutS = 600;

struct IsolationSettings {
  bool isolate = false;
  double hang_timeout_s = kDefaultHangTimeoutS;
  std::optional<TestCrash> test_crash;
};

// Reads "isolate", "hang_timeout_s" and "test_crash" from raw matrix JSON (after --set overrides). InputError
// naming `file` and the field, e.g. "m.json: test_crash.kind: unknown crash kind 'boom' ...".
IsolationSettings parse_isolation_settings(const nlohmann::json& matrix, const std::string& file);

// load_matrix, and the isolation settings from the same reading of the file.
struct LoadedMatrix {
  MatrixSpec spec;
  IsolationSettings isolation;
};
LoadedMatrix load_matrix_with_isolation(const std::string& path, const MatrixParseOptions& options,
                                        const std::vector<std::string>& set_overrides = {});

}  // namespace tb
