#include <trainbench/runner/torch/environment.hpp>

#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

#include <ATen/Context.h>
#include <ATen/DeviceAccelerator.h>
#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <trainbench/build_config.hpp>
#include <trainbench/measure/precision_support.hpp>
#include <trainbench/measure/system_info.hpp>
#include <trainbench/support/shell_capture.hpp>
#include <trainbench/support/utc_time.hpp>

#if defined(TRAINBENCH_TORCH_CUDA)
#include <ATen/cuda/CUDAContextLight.h>
#endif

namespace tb {

namespace {

// What a command printed ("" when it could not run): nvidia-smi's and git's answers.
std::string run_command(const std::string& cmd) { return capture_shell(cmd).out; }

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::int64_t memory_bytes() { return static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE); }

}  // namespace

nlohmann::json capture_environment(const std::vector<std::string>& command_line, std::uint64_t seed) {
  nlohmann::json env;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  env["hostname"] = host;
  utsname u{};
  if (uname(&u) == 0) env["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  env["cpu"] = {
      {"model", cpu_model()}, {"cores", std::thread::hardware_concurrency()}, {"threads_used", at::get_num_threads()}};
  // How this CPU computes bf16 and fp16 (native or emulated, under the dispatch caps in force):
  // reports say it beside the precision's effect.
  env["cpu"]["reduced_precision"] = cpu_reduced_precision();
  env["memory_bytes"] = memory_bytes();
  // google/benchmark's description of the host and the load average at run start; reports
  // (gbench.json) read it from here so that a re-rendered report describes this machine.
  env["host"] = read_system_info();
  env["torch"] = TORCH_VERSION;
  env["compiler"] = TRAINBENCH_CXX_COMPILER;
  env["build_type"] = TRAINBENCH_BUILD_TYPE;
  env["trainbench"] = TRAINBENCH_VERSION;
  const auto& cuda = at::detail::getCUDAHooks();
  env["torch_cuda_build"] = at::hasCUDA();
  const bool gpu = torch::cuda::is_available();
  env["device"] = gpu ? "cuda" : "cpu";
  env["gpu"] = nlohmann::json::array();
  if (gpu) {
    env["cuda_runtime"] = cuda.versionCUDART();
    env["cudnn"] = cuda.hasCuDNN() ? cuda.versionCuDNN() : 0;
    const auto devices = static_cast<std::size_t>(torch::cuda::device_count());
    for (std::size_t i = 0; i < devices; ++i) {
      const auto idx = static_cast<c10::DeviceIndex>(i);
      nlohmann::json g = {{"index", i}};
      g["name"] = run_command("nvidia-smi --query-gpu=name --format=csv,noheader -i " + std::to_string(i));
      g["total_memory_bytes"] = at::accelerator::getMemoryInfo(idx).second;
#if defined(TRAINBENCH_TORCH_CUDA)
      if (const auto* props = at::cuda::getDeviceProperties(idx)) {
        g["compute_capability"] = std::to_string(props->major) + "." + std::to_string(props->minor);
        g["reduced_precision"] = {{"bf16", gpu_precision_path(props->major, props->minor, ReducedDtype::bfloat16)},
                                  {"fp16", gpu_precision_path(props->major, props->minor, ReducedDtype::float16)}};
      }
#endif
      env["gpu"].push_back(g);
    }
    env["driver"] = run_command("nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0");
  }
  const std::string src = TRAINBENCH_SOURCE_DIR;
  env["git_revision"] = run_command("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
  env["git_dirty"] = !run_command("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null").empty();
  env["command_line"] = command_line;
  env["seed"] = seed;
  env["started_at"] = utc_now();
  return env;
}

}  // namespace tb
