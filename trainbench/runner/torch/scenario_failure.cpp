#include <trainbench/runner/torch/scenario_failure.hpp>

#include <new>

#include <ATen/DeviceAccelerator.h>
#include <c10/util/Exception.h>

#include <trainbench/capacity/memory_probe.hpp>
#include <trainbench/runner/cpu_oom.hpp>
#include <trainbench/runner/python_loop_worker.hpp>
#include <trainbench/runner/torch/scenario_session.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

void record_failure(ScenarioResult& r, const ScenarioParams& params, std::exception_ptr error) {
  r.id = scenario_id(params);
  r.params = params;
  try {
    std::rethrow_exception(error);
  } catch (const ScenarioSkipped& e) {
    r.status = ScenarioStatus::skipped;
    r.message = e.what();
  } catch (const c10::OutOfMemoryError& e) {
    r.status = ScenarioStatus::oom;
    const std::string what = e.what_without_backtrace();
    const auto cpu = cpu_oom_message(what);  // some LibTorch versions raise this type on the CPU too
    r.message = cpu ? *cpu : "CUDA out of memory: " + what;
    if (params.device == DeviceKind::cuda) at::accelerator::emptyCache();
  } catch (const MemoryBudgetExceeded& e) {
    r.status = ScenarioStatus::oom;
    r.message = e.what();
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    const auto oom = cpu_oom_message(what);
    r.status = oom ? ScenarioStatus::oom : ScenarioStatus::failed;
    r.message = oom ? *oom : what;
  } catch (const PythonLoopError& e) {
    // The user's code, as the worker classified it: skipped, oom, failed (invalid too). A loss
    // that diverged before any measured step leaves nothing to label: failed, saying so (after
    // measured steps the session keeps them and labels the scenario diverged itself).
    const std::string& st = e.status();
    r.status = st == "skipped" ? ScenarioStatus::skipped : st == "oom" ? ScenarioStatus::oom : ScenarioStatus::failed;
    r.message = (st == "diverged" ? "diverged before any measured step: " : "") + std::string(e.what());
  } catch (const PythonWorkerCrashed& e) {
    r.status = ScenarioStatus::crashed;
    r.message = e.what();
  } catch (const std::bad_alloc&) {
    r.status = ScenarioStatus::oom;
    r.message = cpu_bad_alloc_message();
  } catch (const std::exception& e) {
    r.status = ScenarioStatus::failed;
    r.message = e.what();
  }
}

}  // namespace tb
