#include <trainbench/profiling/torch/profile_pass.hpp>

#include <chrono>
#include <filesystem>

#include <ATen/DeviceAccelerator.h>
#include <torch/cuda.h>

#include <trainbench/capacity/memory_probe.hpp>
#include <trainbench/measure/memory_timeline.hpp>
#include <trainbench/measure/stats.hpp>
#include <trainbench/profiling/chrome_trace_logger.hpp>
#include <trainbench/profiling/nvtx.hpp>
#include <trainbench/profiling/profile_options_check.hpp>
#include <trainbench/profiling/profile_summary.hpp>
#include <trainbench/profiling/torch/kineto_pass.hpp>
#include <trainbench/training/torch/trainer.hpp>
#if defined(TRAINBENCH_HAVE_CUPTI)
#include <trainbench/profiling/cupti_collector.hpp>
#endif

namespace tb {

namespace fs = std::filesystem;

namespace {
// Device memory held by tensors on a GPU; the process's resident set on the CPU.
std::int64_t memory_in_use(c10::Device device) {
  if (device.is_cuda())
    return at::accelerator::getDeviceStats(device.index()).allocated_bytes[0].current;
  return capacity::read_proc_status_bytes("VmRSS");
}

// Between two memory readings of the window's timeline: fine enough to see a step's
// activations come and go, cheap enough (a /proc read or an allocator-stats copy) on one core.
constexpr auto kMemorySampleInterval = std::chrono::milliseconds(1);

// The sampler of the window's memory timeline: the caching allocator's bytes in tensors on a
// GPU (the figure torch.cuda.memory_allocated reports), the resident set on the CPU. Both are
// safe to read from the sampler's own thread.
MemorySampler memory_sampler(c10::Device device) {
  if (device.is_cuda()) {
    const auto index = device.index();
    return MemorySampler([index] { return at::accelerator::getDeviceStats(index).allocated_bytes[0].current; },
                         "cuda_allocated", kMemorySampleInterval);
  }
  return MemorySampler(read_statm_rss_bytes, "rss", kMemorySampleInterval);
}

// The timeline as a counter track of the host trace (Chrome trace "ph":"C").
void record_memory_track(profiling::HostRecorder& recorder, const MemoryTimeline& timeline) {
  const char* name = timeline.source == "rss" ? "memory_timeline_rss_bytes" : "memory_timeline_cuda_allocated_bytes";
  for (const auto& point : timeline.points) recorder.record_counter(name, static_cast<double>(point.bytes), point.ts_ns);
}
}  // namespace

ProfilePass::ProfilePass(const ScenarioParams& params, std::optional<bool> override_enabled, int rank)
    : options_(params.profile), scenario_(scenario_id(params) + (rank >= 0 ? "/rank" + std::to_string(rank) : "")) {
  if (override_enabled) options_.enabled = *override_enabled;
  if (options_.enabled && (options_.host_trace || options_.cupti)) recorder_.emplace();
}

ProfileSection ProfilePass::run(Trainer& trainer, c10::Device device, const std::string& out_dir) {
  ProfileSection result;
  result.window_steps = options_.window;
  const bool cuda = device.is_cuda();
#if defined(TRAINBENCH_HAVE_CUPTI)
  constexpr bool kCuptiBuilt = true;
#else
  constexpr bool kCuptiBuilt = false;
#endif
  // Throws for cupti+kineto together; returns a reason when CUPTI cannot run here.
  const std::string cupti_skip =
      profiling::check_profile_options(options_, cuda, kCuptiBuilt, "profile");
  const bool use_cupti = options_.cupti && cupti_skip.empty();
  if (options_.cupti && !cupti_skip.empty()) result.cupti_skipped = cupti_skip;
  fs::create_directories(fs::path(out_dir) / "traces");
  profiling::nvtx::set_enabled(options_.nvtx);
  StepSample sample;
  std::vector<double> window_steps;

  if (recorder_ && (options_.host_trace || use_cupti)) {
    recorder_->clear();
    profiling::HostRecorder::set_thread_name("main");
    profiling::DecodedRecords records;
    {
      profiling::ActiveRecorderScope active(*recorder_);
#if defined(TRAINBENCH_HAVE_CUPTI)
      std::optional<profiling::CuptiCollector> collector;
      if (use_cupti) {
        collector.emplace();
        collector->start();
      }
#endif
      MemorySampler memory = memory_sampler(device);
      memory.start();
      for (int i = 0; i < options_.window; ++i) {
        trainer.step(sample);
        recorder_->record_counter("step_time_ms", sample.step_s * 1e3);
        recorder_->record_counter("memory_in_use_bytes", static_cast<double>(memory_in_use(device)));
        window_steps.push_back(sample.step_s);
      }
      const MemoryTimeline timeline = memory.stop();
      record_memory_track(*recorder_, timeline);
      result.memory_timeline = memory_timeline_json(timeline);
#if defined(TRAINBENCH_HAVE_CUPTI)
      if (collector) records = collector->stop();
#endif
    }
    const auto file = profiling::trace_file_name(scenario_, "host", options_.gzip);
    profiling::write_chrome_trace(*recorder_, records.activities, records.calls,
                                  (fs::path(out_dir) / "traces" / file).string(), options_.gzip,
                                  profiling::TraceInfo{scenario_, {{"window_steps", options_.window}}});
    result.traces["host"] = "traces/" + file;
    // The profiled steps' own times: compared with the timed median this is the cost of
    // recording (and of CUPTI collection when on).
    result.window_step_time_s = stats::median(window_steps);
    result.dropped_host_spans = static_cast<std::int64_t>(recorder_->dropped());
    if (use_cupti) result.cupti = profiling::to_json(profiling::summarize(records, recorder_->spans()));
  }

  if (options_.kineto) {
    const auto file = profiling::trace_file_name(scenario_, "kineto", false);
    KinetoPass kineto;
    kineto.start(cuda);
    for (int i = 0; i < options_.window; ++i) trainer.step(sample);
    kineto.stop_and_save((fs::path(out_dir) / "traces" / file).string());
    result.traces["kineto"] = "traces/" + file;
  }
  profiling::nvtx::set_enabled(true);
  return result;
}

}  // namespace tb
