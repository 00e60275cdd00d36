#include <trainbench/runner/torch/python_loop_check.hpp>

#include <cstdio>
#include <filesystem>
#include <set>
#include <utility>

#include <unistd.h>

#include <ATen/Parallel.h>

#include <trainbench/runner/python_loop_worker.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

void check_python_loops(const std::vector<ScenarioParams>& scenarios, const std::string& matrix_file) {
  std::set<std::pair<std::string, std::string>> checked;
  const PythonRuntime runtime = PythonRuntime::from_environment();
  const std::string log =
      (std::filesystem::temp_directory_path() / ("trainbench-check-" + std::to_string(::getpid()) + ".log")).string();
  for (const ScenarioParams& p : scenarios) {
    if (p.loop != LoopKind::python || !checked.emplace(p.python.file, p.python.function).second) continue;
    const std::string device = p.device == DeviceKind::cuda ? "cuda:0" : "cpu";
    try {
      check_python_loop(runtime, p.python, python_settings(p, device, at::get_num_threads()), log);
    } catch (const PythonLoopError& e) {
      if (e.status() != "invalid") continue;
      std::remove(log.c_str());
      throw InputError(matrix_file, e.field().empty() ? "python.function" : e.field(), e.what());
    }
  }
  std::remove(log.c_str());
}

}  // namespace tb
