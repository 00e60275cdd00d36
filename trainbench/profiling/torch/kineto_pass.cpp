#include <trainbench/profiling/torch/kineto_pass.hpp>

#include <torch/csrc/autograd/profiler_kineto.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace tb {
namespace {

namespace prof = torch::autograd::profiler;
namespace impl = torch::profiler::impl;

// With profile_all_threads the profiler state is global, so "already running" is tracked
// process-wide rather than through the thread-local profilerEnabled().
std::atomic<bool> g_kineto_running{false};

}  // namespace

KinetoPass::~KinetoPass() {
  if (!running_) return;
  try {
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
    prof::prepareProfiler(config, activities);
    prof::enableProfiler(config, activities);
  } catch (...) {
    g_kineto_running = false;
    throw;
  }
  running_ = true;
}

void KinetoPass::stop_and_save(const std::string& path) {
  if (!running_) throw std::runtime_error(path + ": kineto pass was not started");
  running_ = false;
  auto result = prof::disableProfiler();
  g_kineto_running = false;
  if (!result) throw std::runtime_error(path + ": kineto profiler returned no result");
  result->save(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0)
    throw std::runtime_error(path + ": kineto trace was not written");
}

}  // namespace tb
