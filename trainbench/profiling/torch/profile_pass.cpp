#include <trainbench/profiling/torch/profile_pass.hpp>

#include <algorithm>
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
#include <trainbench/profiling/torch/trace_ranges.hpp>
#include <trainbench/training/torch/trainer.hpp>
#if defined(TRAINBENCH_HAVE_CUPTI)
#include <trainbench/profiling/cupti_collector.hpp>
#endif

namespace tb {

namespace fs = std::filesystem;

namespace {
// Device memory held by tensors on a GPU; the process's resident set on the CPU.
std::int64_t memory_in_use(c10::Device device) {
  if (device.is_cuda()) return at::accelerator::getDeviceStats(device.index()).allocated_bytes[0].current;
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
  for (const auto& point : timeline.points)
    recorder.record_counter(name, static_cast<double>(point.bytes), point.ts_ns);
}
}  // namespace

ProfilePass::ProfilePass(const ScenarioParams& params, std::optional<bool> override_enabled, int rank)
    : options_(params.profile),
      rank_(rank),
      world_size_(params.world_size),
      scenario_(scenario_id(params) + (rank >= 0 ? "/rank" + std::to_string(rank) : "")) {
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
  const std::string cupti_skip = profiling::check_profile_options(options_, cuda, kCuptiBuilt, "profile");
  const bool use_cupti = options_.cupti && cupti_skip.empty();
  if (options_.cupti && !cupti_skip.empty()) result.cupti_skipped = cupti_skip;
  fs::create_directories(fs::path(out_dir) / "traces");
  profiling::nvtx::set_enabled(options_.nvtx);
  StepSample sample;
  std::vector<double> window_steps;
  const fs::path traces = fs::path(out_dir) / "traces";
  const bool host = recorder_ && (options_.host_trace || use_cupti);

  // With both on, the host recorder and Kineto watch the same window, and the host trace is
  // written in the Kineto trace's time base: its step spans are the Kineto trace's ProfilerSteps.
  std::optional<KinetoPass> kineto;
  const auto step_names =
      options_.kineto ? profiling::profiler_step_names(options_.window) : std::vector<std::string>{};
  const auto profiled_step = [&](int i) {
    if (kineto) kineto->advance_step();
    profiling::TraceRange step_range(kineto ? step_names[static_cast<std::size_t>(i)].c_str() : "");
    trainer.step(sample);
  };
  if (options_.kineto) {
    kineto.emplace();
    kineto->start(cuda);
    // What torch.profiler writes for a process group, so HTA can tell the ranks' traces apart.
    kineto->add_metadata(
        "distributedInfo",
        nlohmann::json{{"rank", std::max(rank_, 0)}, {"world_size", world_size_}, {"backend", cuda ? "nccl" : "gloo"}}
            .dump());
  }

  profiling::DecodedRecords records;
  if (host) {
    recorder_->clear();
    profiling::HostRecorder::set_thread_name("main");
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
      profiled_step(i);
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
  } else {
    for (int i = 0; i < options_.window; ++i) profiled_step(i);
  }

  std::optional<std::int64_t> kineto_base_ns;
  if (kineto) {
    const auto file = profiling::trace_file_name(scenario_, profiling::kKinetoTraceKind, false);
    kineto_base_ns = kineto->stop_and_save((traces / file).string());
    result.traces["kineto"] = "traces/" + file;
  }
  if (host) {
    const auto file = profiling::trace_file_name(scenario_, "host", options_.gzip);
    profiling::TraceInfo info{scenario_, {{"window_steps", options_.window}}};
    info.time_base = profiling::unix_time_base(kineto_base_ns);
    profiling::write_chrome_trace(*recorder_, records.activities, records.calls, (traces / file).string(),
                                  options_.gzip, info);
    result.traces["host"] = "traces/" + file;
    // The profiled steps' own times: compared with the timed median this is the cost of
    // recording (and of CUPTI collection, or of the Kineto profiler, when on).
    result.window_step_time_s = stats::median(window_steps);
    result.dropped_host_spans = static_cast<std::int64_t>(recorder_->dropped());
    if (use_cupti) result.cupti = profiling::to_json(profiling::summarize(records, recorder_->spans()));
  }
  profiling::nvtx::set_enabled(true);
  return result;
}

}  // namespace tb
