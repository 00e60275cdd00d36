#include <trainbench/profiling/torch/kineto_pass.hpp>

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/cuda.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include <trainbench/profiling/host_recorder.hpp>
#include <trainbench/profiling/torch/trace_ranges.hpp>
#include <trainbench/results/durable_file.hpp>

// torch.profiler's step() advances Kineto's step counter through this (torch._C._kineto_step).
// Declared in torch/csrc/profiler/kineto_shim.h, which needs libkineto's headers that LibTorch's
// CMake package leaves off the include path; the symbol is exported from libtorch_cpu.
// Likewise addMetadataJson, which adds a top-level key to the saved trace.
namespace torch::autograd::profiler {
TORCH_API void profilerStep();
TORCH_API void addMetadataJson(const std::string& key, const std::string& value);
}  // namespace torch::autograd::profiler

namespace tb {
namespace {

namespace prof = torch::autograd::profiler;
namespace impl = torch::profiler::impl;

// With profile_all_threads the profiler state is global, so "already running" is tracked
// process-wide rather than through the thread-local profilerEnabled().
std::atomic<bool> g_kineto_running{false};

// Kineto's levels (ILoggerObserver.h): 0 verbose, 1 info, 2 warning, 3 stage, 4 error; 5 logs
// nothing. Kineto reads KINETO_LOG_LEVEL when LibTorch initialises it, in the first
// prepareProfiler. Set only without a GPU (the probe's error is then expected) and never over
// the user's own choice.
void quiet_gpu_probe_without_gpu() {
  if (!torch::cuda::is_available()) ::setenv("KINETO_LOG_LEVEL", "5", /*overwrite=*/0);
}

// Kineto names every thread after the thread that saves ("thread 123 (trainbench)"): the names
// trainbench gave its threads (loader-N) replace them, as "thread 123 (loader-0)". Returns the
// trace's "baseTimeNanoseconds" (nullopt if it has none).
std::optional<std::int64_t> finish_trace(const std::string& path) {
  nlohmann::json trace;
  {
    std::ifstream in(path);
    trace = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  }
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array())
    throw std::runtime_error(path + ": kineto wrote no readable trace");
  std::optional<std::int64_t> base;
  if (trace.contains("baseTimeNanoseconds") && trace["baseTimeNanoseconds"].is_number_integer())
    base = trace["baseTimeNanoseconds"].get<std::int64_t>();
  const auto named = profiling::HostRecorder::named_os_threads();
  bool renamed = false;
  for (auto& e : trace["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "M" || e.value("name", "") != "thread_name") continue;
    if (!e.contains("tid") || !e["tid"].is_number_integer()) continue;
    const auto tid = e["tid"].get<std::int64_t>();
    for (const auto& [os_tid, name] : named)
      if (os_tid == tid) {
        e["args"]["name"] = "thread " + std::to_string(tid) + " (" + name + ")";
        renamed = true;
      }
  }
  // One key per line with ": " as Kineto writes it: HTA finds the rank with a line-wise regex
  // that wants a space after the colon.
  if (renamed) write_file_durably(path, trace.dump(0));
  return base;
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
  try {
    quiet_gpu_probe_without_gpu();  // before Kineto's initialisation, which reads it
    prof::prepareProfiler(config, activities);
    prof::enableProfiler(config, activities);
  } catch (...) {
    g_kineto_running = false;
    throw;
  }
  running_ = true;
  profiling::set_trace_ranges_enabled(true);
}

void KinetoPass::add_metadata(const std::string& key, const std::string& json_value) {
  if (running_) prof::addMetadataJson(key, json_value);
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
  return finish_trace(path);
}

}  // namespace tb
