// The parent's side of a Python loop worker (`python -m trainbench.worker`, python/trainbench/):
// the step-worker role of the worker protocol (docs/worker-protocol.md "Python loop workers").
// The harness keeps everything that decides and judges (the schedule, the stopping rule, the
// statistics, contention); the worker holds the user's model, optimizer and data and runs
// segments of steps, answering with each step's time, phases and loss, batched per segment so
// that nothing crosses the process boundary inside the timed region.
//
// Torch-free: tests drive it with a scripted worker.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/measure/phase.hpp>
#include <trainbench/runner/child_process.hpp>

namespace tb {

// The Python worker's protocol version: its hello says {"hello": 1, "role": "steps", ...}.
inline constexpr int kPythonLoopProtocolVersion = 1;

// Where the worker's interpreter and package are: TRAINBENCH_PYTHON (the python whose torch to
// use, as scripts/setup.sh reads it), else the python of the venv whose LibTorch this build
// linked, else python3; the package from TRAINBENCH_PYTHONPATH, else the source tree's python/.
struct PythonRuntime {
  std::string interpreter;
  std::string package_dir;
  static PythonRuntime from_environment();
};

// The user's code failed, or refused what it was given. `status` is results.json's: failed,
// oom, diverged, skipped; "invalid" when the file, the function or what it returned is wrong
// (`field` then names the matrix field: python.file or python.function).
class PythonLoopError : public std::runtime_error {
 public:
  PythonLoopError(std::string status, const std::string& message, std::string field = "")
      : std::runtime_error(message), status_(std::move(status)), field_(std::move(field)) {}
  const std::string& status() const noexcept { return status_; }
  const std::string& field() const noexcept { return field_; }

 private:
  std::string status_, field_;
};

// The worker ended without answering (a crash, a kill) or hung past the timeout: the scenario
// is "crashed"; what() ends with the last lines of the worker's stderr.
class PythonWorkerCrashed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PythonBuilt {
  double build_s = 0;
  std::string mode;  // "components" or "custom"
  long long parameters = 0;
  long long samples_per_step = 0;
  long long tokens_per_sample = 0;
};

// What a "run" request asks: the warm-up, then measured steps by the stopping criterion's rule.
struct PythonRunRequest {
  int warmup = 0;
  double warmup_budget_s = 0;
  int min_steps = 1, max_steps = 1;
  double budget_s = 0;
};

struct PythonSegment {
  int warmup_steps = 0;
  std::vector<double> unmeasured_loss;  // NaN where the worker sent null (a non-finite loss)
  std::vector<double> step_s, loss;
  std::array<std::vector<double>, kPhaseCount> phase_s;  // empty: the phase was not measured
  std::optional<double> first_step_s;                    // a compiled model's first step (compiling)
  std::optional<int> recompiles;                         // cumulative, compiled models only
  std::optional<long long> peak_bytes;
};

// The settings object a worker's `build` gets (and the user's function, as trainbench.Settings).
nlohmann::json python_settings(const ScenarioParams& p, const std::string& device, int threads);

// Reads one "segment" reply (PythonLoopError for a malformed one).
PythonSegment parse_python_segment(const nlohmann::json& segment);

// Before anything runs: imports the user's file, calls the function with `settings` and checks
// what it returned (`python -m trainbench.worker --check`). PythonLoopError ("invalid", with the
// matrix field) when the file, the function or its result is wrong; Interrupted on Ctrl-C.
void check_python_loop(const PythonRuntime& runtime, const PythonLoopSpec& spec, const nlohmann::json& settings,
                       const std::string& stderr_path);

class PythonLoopWorker {
 public:
  using GiveUp = std::function<bool()>;
  // Starts the worker and reads its hello; PythonWorkerCrashed when it does not start or speaks
  // another protocol version. Its stderr goes to `stderr_path` (quoted when it fails).
  // `argv` empty: `runtime.interpreter -m trainbench.worker`.
  PythonLoopWorker(const PythonRuntime& runtime, const std::string& stderr_path, double timeout_s,
                   std::vector<std::string> argv = {});
  ~PythonLoopWorker();
  PythonLoopWorker(const PythonLoopWorker&) = delete;
  PythonLoopWorker& operator=(const PythonLoopWorker&) = delete;

  const std::string& python_version() const { return python_; }
  int pid() const { return child_ ? static_cast<int>(child_->pid()) : -1; }
  const std::string& torch_version() const { return torch_; }

  // Each throws PythonLoopError for the user's failure, PythonWorkerCrashed when the worker ends
  // or hangs past the timeout, or Interrupted (interrupt.hpp) when `give_up` said true (the
  // worker is then killed: it was mid-request).
  PythonBuilt build(const PythonLoopSpec& spec, const nlohmann::json& settings, const GiveUp& give_up = {});
  PythonSegment run(const PythonRunRequest& request, const GiveUp& give_up = {});
  // A profiling window of `steps` steps under torch.profiler, its Chrome trace written to
  // `trace` (an absolute path); returns how many steps it profiled.
  int profile(int steps, const std::string& trace, bool nvtx, const GiveUp& give_up = {});
  // Ends the session: the worker answers and exits.
  void finish();

 private:
  nlohmann::json request(const nlohmann::json& message, const char* reply_key, const GiveUp& give_up);
  [[noreturn]] void crashed(const std::string& what);
  std::unique_ptr<ChildProcess> child_;
  std::string stderr_path_;
  double timeout_s_;
  std::string python_, torch_;
};

}  // namespace tb
