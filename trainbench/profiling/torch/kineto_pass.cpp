#include <trainbench/profiling/torch/kineto_pass.hpp>

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>

#include <trainbench/profiling/torch/trace_ranges.hpp>

// torch.profiler's step() advances Kineto's step counter through this (torch._C._kineto_step).
// Declared in torch/csrc/profiler/kineto_shim.h, which needs libkineto's headers that LibTorch's
// CMake package leaves off the include path; the symbol is exported from libtorch_cpu.
namespace torch::autograd::profiler {
TORCH_API void profilerStep();
}  // namespace torch::autograd::profiler

namespace tb {
namespace {

namespace prof = torch::autograd::profiler;
namespace impl = torch::profiler::impl;

// With profile_all_threads the profiler state is global, so "already running" is tracked
// process-wide rather than through the thread-local profilerEnabled().
std::atomic<bool> g_kineto_running{false};

// Kineto's levels: 0 verbose, 1 info, 2 warning, 3 error, 4 stage. Read when Kineto initialises,
// which LibTorch does on the first prepareProfiler.
void quiet_gpu_probe_without_gpu() {
  if (!torch::cuda::is_available()) ::setenv("KINETO_LOG_LEVEL", "4", /*overwrite=*/0);
}

// Kineto writes its header before the events, so the base is in the first few kilobytes.
std::optional<std::int64_t> read_base_time_ns(const std::string& path) {
  std::ifstream in(path);
  std::string head(16384, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  static const std::regex base(R"re("baseTimeNanoseconds"\s*:\s*([0-9]+))re");
  std::smatch m;
  if (!std::regex_search(head, m, base)) return std::nullopt;
  return std::stoll(m[1].str());
}

}  // namespace

KinetoPass::~KinetoPass() {
  if (!running_) return;
  try {
    profiling::set_trace_ranges_enabled(false);
    prof::disableProfiler();
  } catch (...) {  // destructor: nothing sensible to report
  }
  g_kineto_running = false;
}

void KinetoPass::start(bool cuda, bool record_shapes) {
  if (running_ || impl::profilerEnabled() || g_kineto_running.exchange(true))
    throw std::runtime_error("kineto: a profiler is already running in this process");
  impl::ExperimentalConfig experimental;
  experimental.profile_all_threads = true;  // data-loader worker threads too
  const impl::ProfilerConfig config(impl::ProfilerState::KINETO, record_shapes,
                                    /*profile_memory=*/false, /*with_stack=*/false,
                                    /*with_flops=*/false, /*with_modules=*/false, experimental);
  std::set<impl::ActivityType> activities{impl::ActivityType::CPU};
  if (cuda) activities.insert(impl::ActivityType::CUDA);
  quiet_gpu_probe_without_gpu();
  try {
    prof::prepareProfiler(config, activities);
    prof::enableProfiler(config, activities);
  } catch (...) {
    g_kineto_running = false;
    throw;
  }
  running_ = true;
  profiling::set_trace_ranges_enabled(true);
}

void KinetoPass::advance_step() {
  if (running_) prof::profilerStep();
}

std::optional<std::int64_t> KinetoPass::stop_and_save(const std::string& path) {
  if (!running_) throw std::runtime_error(path + ": kineto pass was not started");
  running_ = false;
  profiling::set_trace_ranges_enabled(false);
  auto result = prof::disableProfiler();
  g_kineto_running = false;
  if (!result) throw std::runtime_error(path + ": kineto profiler returned no result");
  result->save(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0)
    throw std::runtime_error(path + ": kineto trace was not written");
  return read_base_time_ns(path);
}

}  // namespace tb
