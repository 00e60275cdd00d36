#include <trainbench/runner/torch/scenario_session.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <mutex>

#include <malloc.h>
#include <unistd.h>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/DeviceAccelerator.h>
#include <torch/utils.h>

#include <trainbench/capacity/flops.hpp>
#include <trainbench/capacity/memory_probe.hpp>
#include <trainbench/measure/divergence.hpp>
#include <trainbench/measure/energy_meter.hpp>
#include <trainbench/measure/gpu_monitor.hpp>
#include <trainbench/measure/host_load.hpp>
#include <trainbench/measure/segment_stats.hpp>
#include <trainbench/measure/stats.hpp>
#include <trainbench/profiling/chrome_trace_logger.hpp>
#include <trainbench/profiling/nvtx.hpp>
#include <trainbench/profiling/rank_trace_merge.hpp>
#include <trainbench/profiling/torch/profile_pass.hpp>
#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/liveness.hpp>
#include <trainbench/runner/python_loop_worker.hpp>
#include <trainbench/runner/stopping_criterion.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/safe_file_stem.hpp>
#include <trainbench/training/torch/batch_stream.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>
#include <trainbench/training/torch/optimisation_settings.hpp>
#include <trainbench/training/torch/precision.hpp>
#include <trainbench/training/torch/registry.hpp>
#include <trainbench/training/torch/sharded_source.hpp>
#include <trainbench/training/torch/trainer.hpp>

namespace tb {

namespace {

// One device per rank: a rank takes the GPU of its place on the node.
c10::Device resolve_device(DeviceKind device, const RunOptions& options) {
  if (device != DeviceKind::cuda) return c10::Device(c10::kCPU);
  const int local_rank = options.world ? options.world->environment().local_rank : 0;
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

// What one rank measured, for rank 0's straggler view.
RankTiming rank_timing(int rank, const std::vector<StepSample>& measured, int per_rank_batch) {
  RankTiming t;
  t.rank = rank;
  t.host = host_name();
  std::vector<double> steps, exposed, compute;
  for (const auto& m : measured) {
    const double comm = m.phase_s[static_cast<int>(Phase::comm)];
    steps.push_back(m.step_s);
    exposed.push_back(comm);
    compute.push_back(m.step_s - comm);
  }
  t.median_step_s = stats::median(steps);
  t.exposed_comm_s = stats::median(exposed);
  t.compute_s = stats::median(compute);
  t.samples_per_s = t.median_step_s > 0 ? per_rank_batch / t.median_step_s : 0;
  return t;
}

std::shared_ptr<SampleSource> make_source(const ScenarioParams& p) {
  const auto& model = Registry::instance().model(p.model);
  const std::string name = p.dataset.empty() ? model.default_dataset : p.dataset;
  nlohmann::json options = model.default_dataset_options;
  options.merge_patch(p.dataset_options);
  return Registry::instance().dataset(name).factory(DatasetRequest{options, p.seed});
}

// Peak memory of one scenario: the caching allocator on a GPU, the process RSS everywhere. With
// other scenarios alive in the process, only this one's growth since it was built is its own:
// the peak is reported as the process's size before any scenario plus that growth.
class MemoryWatch {
 public:
  MemoryWatch(c10::Device device, std::int64_t base_rss_bytes) : device_(device) {
    if (device_.is_cuda()) {
      at::accelerator::synchronizeDevice(device_.index());
      at::accelerator::resetPeakStats(device_.index());
      const auto stats = at::accelerator::getDeviceStats(device_.index());
      allocated_at_start_ = stats.allocated_bytes[0].current;
      reserved_at_start_ = stats.reserved_bytes[0].current;
      retries_at_start_ = stats.num_alloc_retries;
    }
    // Hand freed heap back to the OS first: otherwise memory an earlier (larger) scenario freed
    // but glibc kept would count towards this scenario's peak RSS.
    malloc_trim(0);
    rss_.reset();
    rss_at_start_ = rss_.current_rss_bytes();
    base_rss_ = base_rss_bytes > 0 ? base_rss_bytes : rss_at_start_;
  }
  MemoryStats read() const {
    MemoryStats m;
    m.peak_rss_bytes = base_rss_ + std::max<std::int64_t>(0, rss_.peak_rss_bytes() - rss_at_start_);
    if (device_.is_cuda()) {
      const auto stats = at::accelerator::getDeviceStats(device_.index());
      constexpr auto kAll = 0;  // StatType::AGGREGATE
      m.peak_allocated_bytes = stats.allocated_bytes[kAll].peak - allocated_at_start_;
      m.peak_reserved_bytes = stats.reserved_bytes[kAll].peak - reserved_at_start_;
      m.alloc_retries = stats.num_alloc_retries - retries_at_start_;
    }
    return m;
  }

 private:
  c10::Device device_;
  capacity::PeakRssProbe rss_;
  std::int64_t rss_at_start_ = 0, base_rss_ = 0;
  std::int64_t allocated_at_start_ = 0, reserved_at_start_ = 0, retries_at_start_ = 0;
};

// Swaps this scenario's CPU random state in for the duration of a segment, so the data order
// (RandomSampler draws from the default generator) is the same whatever ran in between.
class RngStateScope {
 public:
  explicit RngStateScope(at::Tensor& saved) : saved_(saved) {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    outer_ = gen.get_state();
    if (saved_.defined()) gen.set_state(saved_);
  }
  ~RngStateScope() {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    saved_ = gen.get_state();
    gen.set_state(outer_);
  }
  RngStateScope(const RngStateScope&) = delete;
  RngStateScope& operator=(const RngStateScope&) = delete;

 private:
  at::Tensor& saved_;
  at::Tensor outer_;
};

}  // namespace

struct ScenarioSession::State {
  explicit State(const ScenarioParams& p, const RunOptions& o)
      : params(p), options(o), device(resolve_device(p.device, o)), criterion(make_stopping_criterion(p.stopping)) {}

  const ScenarioParams params;  // the trainer keeps a reference: never moves
  const RunOptions& options;
  Clock::time_point run_start, built;
  c10::Device device;
  at::Tensor rng_state;
  // Declaration order is destruction order reversed: the profile pass's recorder outlives the
  // loader's worker threads, which may record spans until they are joined.
  std::optional<ProfilePass> profile_pass;
  std::shared_ptr<SampleSource> source;
  std::unique_ptr<TrainableModel> model;
  std::unique_ptr<BatchStream> stream;
  std::unique_ptr<Trainer> trainer;
  // Data-parallel only: the scenario's ranks and the reducer on its parameters (destroyed before
  // the trainer and the model, whose gradients it hooks).
  std::shared_ptr<dist::World> solo_world;  // the reducer alone, without a launcher
  std::shared_ptr<dist::Group> group;
  std::unique_ptr<dist::GradientReducer> reducer;
  std::string group_tag;
  std::optional<DataParallelSection> data_parallel;  // filled when built, completed by result()
  std::unique_ptr<MemoryWatch> memory_watch;
  std::optional<MemoryStats> memory;  // read after the first segment
  DisturbanceMeter disturbance;
  std::optional<GpuSampler> gpu;      // NVML clocks, temperature, throttling at segment edges
  std::optional<EnergyMeter> energy;  // NVML or RAPL energy counter at segment edges
  // A Python loop (params.loop python): the worker process that runs its steps, what it said about
  // itself, and the phases it measured (a custom step marks only some).
  std::unique_ptr<PythonLoopWorker> python;
  PythonLoopSection python_section;
  std::array<bool, kPhaseCount> python_phases{};
  long long python_tokens_per_sample = 0;
  long long python_samples_per_step = 0;       // the worker's count (a custom step may say its own)
  std::optional<std::string> python_diverged;  // the worker's message, once the loss stopped being finite

  bool warmed_up = false;
  int unmeasured_steps = 0;  // warm-up plus every segment's re-warm
  std::vector<StepSample> measured;
  std::vector<double> loss_curve;
  std::vector<Segment> segments;
  std::unique_ptr<StoppingCriterion> criterion;  // when a segment, and the scenario, are done

  // Step-time distribution with its drift-aware interval, from the segments so far.
  Distribution timing() const;
  ScenarioResult result() const;
  // Whether to go on: rank 0's `done` (or its interrupt) on every rank of a data-parallel
  // scenario, so all ranks run the same steps; throws Interrupted on every rank alike.
  enum Decision : std::int64_t { go_on = 0, done = 1, stop = 2 };
  Decision decide(bool done_here) const;
};

ScenarioSession::State::Decision ScenarioSession::State::decide(bool done_here) const {
  const bool leader = !options.follower;
  std::int64_t d = leader && interrupted() ? stop : done_here ? done : go_on;
  if (group && group->size() > 1) d = group->broadcast_decision(d);
  return static_cast<Decision>(d);
}

Distribution ScenarioSession::State::timing() const {
  std::vector<double> medians, steps;
  for (const auto& seg : segments) medians.push_back(seg.median_s);
  for (const auto& m : measured) steps.push_back(m.step_s);
  return stats::summarize_segmented(steps, medians);
}

ScenarioSession::ScenarioSession(const ScenarioParams& params, const RunOptions& options, Clock::time_point run_start,
                                 std::int64_t base_rss_bytes, const std::string& group_tag)
    : s_(std::make_unique<State>(params, options)) {
  signal_progress();  // building a scenario, measuring a segment, finishing: each says "still going"
  auto& s = *s_;
  const ScenarioParams& p = s.params;
  TB_NVTX_SCENARIO(scenario_id(p));
  s.run_start = run_start;
  s.built = Clock::now();
  const auto support = check_precision(p.precision, p.device);
  if (!support.supported) throw ScenarioSkipped(support.reason);
  const bool data_parallel = is_data_parallel(p);
  if (p.world_size > 1 && !options.world)
    throw ScenarioSkipped("world_size " + std::to_string(p.world_size) +
                          " needs that many ranks: run with --nproc-per-node N, under torchrun or srun "
                          "(docs/data-parallel.md)");
  if (data_parallel && options.world && options.world->size() < p.world_size)
    throw ScenarioSkipped("world_size " + std::to_string(p.world_size) + " needs that many ranks; this run has " +
                          std::to_string(options.world->size()));
  s.group_tag = group_tag;
  const PrecisionGuard precision_guard(p.precision);
  const CudnnBenchmarkGuard cudnn_guard(p.cudnn_benchmark);
  const RngStateScope rng(s.rng_state);
  torch::manual_seed(p.seed);

  s.profile_pass.emplace(p, options.profile, p.world_size > 1 ? options.world->rank() : -1);
  if (p.loop == LoopKind::python) {
    start_python_loop(s);
    if (s.device.is_cuda() && NvmlLibrary::shared().available())
      s.gpu.emplace(NvmlLibrary::shared(), std::vector<unsigned>{static_cast<unsigned>(s.device.index())});
    return;
  }
  s.source = make_source(p);
  if (p.world_size > 1) s.source = std::make_shared<ShardedSource>(s.source, options.world->rank(), p.world_size);
  s.model = Registry::instance().model(p.model).factory(p.model_options, s.source->info());
  if (const auto why = optimisation_unsupported_reason(p, s.model->module(), s.source->info()); !why.empty())
    throw ScenarioSkipped(why);
  s.stream = std::make_unique<BatchStream>(s.source, p.batch, p.workers, p.test_delay_ms, p.pin_memory);
  s.trainer = std::make_unique<Trainer>(p, *s.model, *s.stream, s.device);
  if (data_parallel) {
    // As DistributedDataParallel starts: rank 0's parameters and buffers everywhere, then the
    // reducer; then one all-reduce of the gradient's size, timed now, for the communication model.
    // The reducer alone (world_size 1) runs in a one-rank world of its own without a launcher.
    if (!options.world) s.solo_world = dist::World::solo(std::chrono::minutes(5));
    dist::World& world = options.world ? *options.world : *s.solo_world;
    s.group = world.group(p.world_size, s.device, group_tag.empty() ? "solo" : group_tag);
    auto& module = s.model->module();
    std::vector<at::Tensor> state = module.parameters();
    for (const auto& b : module.buffers()) state.push_back(b);
    s.group->broadcast_from_rank0(state);
    s.reducer = std::make_unique<dist::GradientReducer>(s.group, module.parameters(), p.data_parallel.bucket_mb);
    s.trainer->attach_reducer(s.reducer.get());
    DataParallelSection dp;
    dp.backend = s.group->backend();
    dp.world_size = p.world_size;
    dp.scaling = to_string(p.scaling);
    dp.global_batch = global_batch(p);
    dp.bucket_mb = p.data_parallel.bucket_mb;
    dp.buckets = s.reducer->buckets();
    dp.gradient_bytes = s.reducer->gradient_bytes();
    dp.allreduce_s = s.group->time_allreduce(dp.gradient_bytes, 5);
    dp.latency_s = s.group->time_allreduce(4, 10);
    if (dp.allreduce_s > 0) {
      const double n = p.world_size;
      dp.algbw_bytes_per_s = static_cast<double>(dp.gradient_bytes) / dp.allreduce_s;
      dp.busbw_bytes_per_s = dp.algbw_bytes_per_s * 2.0 * (n - 1) / n;  // nccl-tests' all-reduce factor
    }
    s.data_parallel = std::move(dp);
  }
  if (p.cuda_graphs) {
    try {
      s.trainer->prepare_graph();
    } catch (const c10::Error& e) {
      // The model does something a capture cannot hold (a host sync, a CPU tensor, a shape that
      // depends on data): the settings are unsupported for it, not a failed measurement.
      const std::string what = e.what_without_backtrace();
      throw ScenarioSkipped("cuda_graphs: the step could not be captured: " + what.substr(0, what.find('\n')));
    }
  }
  s.memory_watch = std::make_unique<MemoryWatch>(s.device, base_rss_bytes);
  if (s.device.is_cuda() && NvmlLibrary::shared().available())
    s.gpu.emplace(NvmlLibrary::shared(), std::vector<unsigned>{static_cast<unsigned>(s.device.index())});
  s.energy.emplace(open_energy_counter(s.device.is_cuda() ? "cuda" : "cpu",
                                       s.device.is_cuda() ? static_cast<unsigned>(s.device.index()) : 0));
}

ScenarioSession::~ScenarioSession() = default;

// Rank 0 folds every rank's host trace into one with a process per rank (rank_trace_merge.hpp);
// the others say where theirs is. A rank whose trace is not in this file system (another node
// without a shared folder) is listed, not merged.
void ScenarioSession::gather_rank_traces(State& s, ProfileSection& profile) {
  const int rank = s.group->rank();
  const std::string key = "traced/" + s.group_tag + "/";
  const auto own = profile.traces.find("host");
  const std::string own_path = own == profile.traces.end() ? "" : own->second;
  if (rank != 0) {
    s.options.world->put(key + std::to_string(rank),
                         nlohmann::json({{"host", host_name()}, {"path", own_path}}).dump());
    return;
  }
  if (own_path.empty() || s.profile_pass->gzip()) return;  // no host trace, or compressed ones
  namespace fs = std::filesystem;
  std::vector<profiling::RankTrace> traces = {{0, host_name(), (fs::path(s.options.out_dir) / own_path).string()}};
  for (int other = 1; other < s.group->size(); ++other) {
    const auto answer = nlohmann::json::parse(s.options.world->take(key + std::to_string(other)));
    const std::string path = answer.value("path", "");
    if (path.empty()) continue;
    profile.traces["host.rank" + std::to_string(other)] = path;
    const auto full = fs::path(s.options.out_dir) / path;
    if (fs::exists(full)) traces.push_back({other, answer.value("host", ""), full.string()});
  }
  const std::string merged = "traces/" + profiling::trace_file_name(scenario_id(s.params), "ranks", false);
  profiling::merge_rank_traces(traces, scenario_id(s.params), (fs::path(s.options.out_dir) / merged).string());
  profile.traces["ranks"] = merged;
}

// A Python loop's profiling window: torch.profiler in the worker, ProfilerStep# per step and a
// record_function (and NVTX range on a GPU) per phase, written as the run's "python" trace.
ProfileSection ScenarioSession::profile_python(State& s) {
  namespace fs = std::filesystem;
  const std::string rel = "traces/" + profiling::trace_file_name(scenario_id(s.params), "python", false);
  const fs::path full = fs::absolute(fs::path(s.options.out_dir) / rel);
  fs::create_directories(full.parent_path());
  ProfileSection profile;
  profile.window_steps =
      s.python->profile(s.params.profile.window, full.string(), s.params.profile.nvtx, [] { return interrupted(); });
  profile.traces["python"] = rel;
  return profile;
}

const ScenarioParams& ScenarioSession::params() const { return s_->params; }
int ScenarioSession::segments() const { return static_cast<int>(s_->segments.size()); }

// The worker's stderr (the user's prints and warnings) goes to DIR/logs/<id>.python.log, kept
// beside the results; quoted when the worker crashes.
void ScenarioSession::start_python_loop(State& s) {
  namespace fs = std::filesystem;
  const ScenarioParams& p = s.params;
  const std::string stem = safe_file_stem(scenario_id(p)) + ".python.log";
  std::string log;
  if (!s.options.out_dir.empty()) {
    fs::create_directories(fs::path(s.options.out_dir) / "logs");
    log = (fs::path(s.options.out_dir) / "logs" / stem).string();
    s.python_section.log = "logs/" + stem;
  } else {
    log = (fs::temp_directory_path() / ("trainbench-" + std::to_string(::getpid()) + "-" + stem)).string();
  }
  s.python = std::make_unique<PythonLoopWorker>(PythonRuntime::from_environment(), log, p.python.timeout_s);
  const std::string device = s.device.is_cuda() ? "cuda:" + std::to_string(s.device.index()) : "cpu";
  const PythonBuilt built =
      s.python->build(p.python, python_settings(p, device, at::get_num_threads()), [] { return interrupted(); });
  PythonLoopSection& py = s.python_section;
  py.python_version = s.python->python_version();
  py.torch_version = s.python->torch_version();
  py.mode = built.mode;
  py.build_s = built.build_s;
  py.parameters = built.parameters;
  s.python_tokens_per_sample = built.tokens_per_sample;
  s.python_samples_per_step = built.samples_per_step;
}

// One segment in the worker: the warm-up and the measured steps run there, by the stopping
// criterion's limits, and come back in one reply. Host load is metered over the whole request,
// with the worker's CPU (and its data-loader processes') counted as this scenario's own.
void ScenarioSession::run_python_segment(State& s, int round) {
  if (s.python_diverged) return;  // nothing more to measure: finish() labels it
  const ScenarioParams& p = s.params;
  const SegmentLimits limits = s.criterion->segment_limits();
  PythonRunRequest request;
  request.warmup = s.warmed_up ? p.stopping.segment_warmup : p.stopping.warmup_steps;
  request.warmup_budget_s = s.warmed_up ? s.criterion->segment_budget_s() : p.stopping.time_budget_s;
  request.min_steps = limits.min_steps;
  request.max_steps = limits.max_steps;
  request.budget_s = limits.budget_s;
  const auto snapshot = [&] {
    LoadSnapshot at = take_load_snapshot();
    const auto worker = process_tree_cpu_seconds(s.python->pid());
    if (at.own_cpu_s && worker) *at.own_cpu_s += *worker;
    else at.own_cpu_s.reset();  // unknown: the meter then says so rather than blame other processes
    return at;
  };
  Segment seg;
  seg.round = round;
  seg.started_s = std::chrono::duration<double>(Clock::now() - s.run_start).count();
  if (s.gpu) s.gpu->sample();
  s.disturbance.begin(snapshot());
  PythonSegment reply;
  try {
    reply = s.python->run(request, [] { return interrupted(); });
  } catch (const PythonLoopError& e) {
    s.disturbance.cancel();
    if (e.status() != "diverged" || s.measured.empty()) throw;
    // As the C++ loop's divergence: the measured steps stay, and the scenario is labelled.
    s.python_diverged = e.what();
    return;
  } catch (...) {
    s.disturbance.cancel();
    throw;
  }
  seg.cpu_s = s.disturbance.end(snapshot());
  seg.load = s.disturbance.last_segment();
  if (s.gpu) s.gpu->sample();
  s.warmed_up = true;
  s.unmeasured_steps += reply.warmup_steps;
  s.loss_curve.insert(s.loss_curve.end(), reply.unmeasured_loss.begin(), reply.unmeasured_loss.end());
  for (std::size_t i = 0; i < kPhaseCount; ++i) s.python_phases[i] = s.python_phases[i] || !reply.phase_s[i].empty();
  for (std::size_t k = 0; k < reply.step_s.size(); ++k) {
    StepSample sample;
    sample.step_s = reply.step_s[k];
    sample.loss = reply.loss[k];
    for (std::size_t i = 0; i < kPhaseCount; ++i)
      if (!reply.phase_s[i].empty()) sample.phase_s[i] = reply.phase_s[i][k];
    s.measured.push_back(sample);
    s.loss_curve.push_back(sample.loss);
  }
  seg.steps = static_cast<int>(reply.step_s.size());
  seg.median_s = stats::median(reply.step_s);
  s.segments.push_back(seg);
  if (reply.first_step_s) s.python_section.first_step_s = reply.first_step_s;
  if (reply.recompiles) s.python_section.recompiles = reply.recompiles;
  if (reply.peak_bytes) {
    MemoryStats m = s.memory.value_or(MemoryStats{});
    auto& peak = s.device.is_cuda() ? m.peak_allocated_bytes : m.peak_rss_bytes;
    peak = std::max<std::int64_t>(peak, *reply.peak_bytes);
    s.memory = m;
  }
}

void ScenarioSession::run_segment(int round) {
  signal_progress();
  auto& s = *s_;
  if (s.python) return run_python_segment(s, round);
  const ScenarioParams& p = s.params;
  TB_NVTX_SCENARIO(scenario_id(p));
  const PrecisionGuard precision_guard(p.precision);
  const CudnnBenchmarkGuard cudnn_guard(p.cudnn_benchmark);
  const RngStateScope rng(s.rng_state);
  StepSample sample;
  // An interrupt between steps drops this segment whole (a half segment would bias its median):
  // the scenario is left as it was after its last complete segment.
  const std::size_t loss_mark = s.loss_curve.size(), measured_mark = s.measured.size();
  const int unmeasured_mark = s.unmeasured_steps;
  auto abandon = [&]() {
    s.loss_curve.resize(loss_mark);
    s.measured.resize(measured_mark);
    s.unmeasured_steps = unmeasured_mark;
    s.disturbance.cancel();
    s.energy->cancel();
    throw Interrupted();
  };
  // Unmeasured steps stop early once `budget_s` of wall time is spent: a large warmup must not
  // outlast the scenario's time budget (unmeasured_steps records how many ran).
  // Every step asks first (State::decide): one process decides alone, data-parallel ranks
  // take rank 0's decision.
  auto go_on = [&](bool done_here) {
    const auto d = s.decide(done_here);
    if (d == State::stop) abandon();
    return d == State::go_on;
  };
  auto unmeasured = [&](int steps, double budget_s) {
    const auto start = Clock::now();
    for (int i = 0; i < steps; ++i) {
      if (!go_on(i > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= budget_s)) break;
      if (s.options.test_hook) s.options.test_hook(p, static_cast<int>(s.loss_curve.size()));
      s.trainer->step(sample);
      s.loss_curve.push_back(sample.loss);
      ++s.unmeasured_steps;
    }
  };
  if (!s.warmed_up) {
    unmeasured(p.stopping.warmup_steps, p.stopping.time_budget_s);
    s.warmed_up = true;
  } else {
    unmeasured(p.stopping.segment_warmup,
               s.criterion->segment_budget_s());  // caches and clocks were another scenario's
  }

  Segment seg;
  seg.round = round;
  seg.started_s = std::chrono::duration<double>(Clock::now() - s.run_start).count();
  const std::size_t first = s.measured.size();
  double measured_s = 0;
  if (s.gpu) s.gpu->sample();
  s.energy->begin();
  s.disturbance.begin();
  while (go_on(s.criterion->segment_done(seg.steps, measured_s))) {
    if (s.options.test_hook) s.options.test_hook(p, static_cast<int>(s.loss_curve.size()));
    s.trainer->step(sample);
    s.measured.push_back(sample);
    s.loss_curve.push_back(sample.loss);
    measured_s += sample.step_s;
    ++seg.steps;
  }
  seg.cpu_s = s.disturbance.end();
  seg.load = s.disturbance.last_segment();
  // This rank's samples: the counter is this rank's GPU (or node).
  s.energy->end(seg.steps, static_cast<double>(seg.steps) * static_cast<double>(p.effective_batch));
  if (s.gpu) s.gpu->sample();
  std::vector<double> times;
  for (std::size_t i = first; i < s.measured.size(); ++i) times.push_back(s.measured[i].step_s);
  seg.median_s = stats::median(times);
  s.segments.push_back(seg);
  if (!s.memory) {
    // Read once, right after the first segment, before any other scenario is built; then the
    // probe goes (its sampling thread, where clear_refs is unavailable, must not run on).
    s.memory = s.memory_watch->read();
    s.memory_watch.reset();
  }
}

ScenarioResult ScenarioSession::State::result() const {
  ScenarioResult r;
  r.id = scenario_id(params);
  r.params = params;
  r.warmup_steps = unmeasured_steps;
  r.segments = segments;
  std::array<std::vector<double>, kPhaseCount> phase;
  for (const auto& m : measured) {
    r.step_times_s.push_back(m.step_s);
    for (std::size_t i = 0; i < kPhaseCount; ++i) phase[i].push_back(m.phase_s[i]);
  }
  r.measured_steps = static_cast<int>(measured.size());
  r.step_time_s = timing();
  r.converged = criterion->converged(r.step_time_s);
  r.stop_reason = criterion->stop_reason(r.step_time_s);
  if (r.step_time_s.median > 0) {
    // Data-parallel: every rank's samples (the step ends together on all of them).
    const long long samples = python_samples_per_step > 0 ? python_samples_per_step : global_batch(params);
    r.samples_per_s = static_cast<double>(samples) / r.step_time_s.median;
    r.tokens_per_s =
        r.samples_per_s * static_cast<double>(model ? model->tokens_per_sample() : python_tokens_per_sample);
  }
  double total = 0;
  if (!measured.empty())
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
      if (i == static_cast<std::size_t>(Phase::comm) && !data_parallel) continue;  // one process: none
      if (python && !python_phases[i]) continue;                                   // a custom step that did not mark it
      PhaseStat ps;
      ps.name = kPhaseNames[i];
      ps.median_s = stats::median(phase[i]);
      ps.mean_s = stats::mean(phase[i]);
      total += ps.mean_s;
      r.phases.push_back(ps);
    }
  // A Python custom step's unmarked time is the step's, in no phase: shares of the whole step.
  if (python && !measured.empty()) total = std::max(total, stats::mean(r.step_times_s));
  for (auto& ps : r.phases) ps.share = total > 0 ? ps.mean_s / total : 0;
  if (python) r.python_loop = python_section;
  r.loss_curve = loss_curve;
  r.loss_start = loss_curve.empty() ? 0 : loss_curve.front();
  r.loss_end = loss_curve.empty() ? 0 : loss_curve.back();
  if (trainer) {
    r.skipped_steps = trainer->scaler().skipped_steps();
    r.final_loss_scale = trainer->scaler().enabled() ? trainer->scaler().scale_value() : 0.0;
  }
  if (memory) r.memory = *memory;
  if (data_parallel) {
    r.data_parallel = data_parallel;
    std::vector<double> exposed, overlapped;
    for (const auto& m : measured) {
      exposed.push_back(m.phase_s[static_cast<int>(Phase::comm)]);
      overlapped.push_back(m.overlapped_comm_s);
    }
    r.data_parallel->exposed_comm_s = stats::median(exposed);
    r.data_parallel->overlapped_comm_s = stats::median(overlapped);
    r.data_parallel->ranks = {rank_timing(group ? group->rank() : 0, measured, params.effective_batch)};
  }
  r.disturbance = disturbance.result(params.contention);
  if (gpu) r.disturbance->add_gpu_load(gpu->result());
  if (energy) r.energy = energy->result();
  if (source) r.dataset = DatasetSection{static_cast<std::int64_t>(source->size())};
  if (model) {
    const auto layers = model->layers_per_sample();
    if (!layers.empty()) r.flops_per_sample = capacity::count_flops(layers);
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - built).count();
  return r;
}

bool ScenarioSession::converged() const { return s_->criterion->converged(s_->timing()); }

ScenarioResult ScenarioSession::snapshot() const {
  ScenarioResult r = s_->result();
  r.stop_reason = "in_progress";  // saved between rounds: more segments are still to come
  return r;
}

ScenarioResult ScenarioSession::finish() {
  signal_progress();
  auto& s = *s_;
  ScenarioResult r = s.result();
  if (const auto reason = detect_divergence(r.loss_curve)) {
    r.status = ScenarioStatus::diverged;
    r.message = *reason;
  }
  const auto budget = s.options.memory_budget_bytes;
  if (budget > 0 && r.memory.peak_rss_bytes > budget)
    throw MemoryBudgetExceeded("peak RSS " + std::to_string(r.memory.peak_rss_bytes) +
                               " bytes exceeds the memory budget of " + std::to_string(budget) + " bytes");
  if (s.group && s.group->size() > 1) {
    // The straggler view: every rank's own timing, gathered on rank 0 through the store.
    const int rank = s.group->rank();
    const std::string key = "timing/" + s.group_tag + "/";
    if (rank != 0) {
      s.options.world->put(key + std::to_string(rank),
                           nlohmann::json(rank_timing(rank, s.measured, s.params.effective_batch)).dump());
    } else {
      for (int other = 1; other < s.group->size(); ++other)
        r.data_parallel->ranks.push_back(
            nlohmann::json::parse(s.options.world->take(key + std::to_string(other))).get<RankTiming>());
    }
  }
  // Profiling is its own pass after the timed steps, so it never distorts the timing figures.
  // Every rank of a data-parallel scenario profiles the same window (its steps all-reduce).
  if (s.python) {
    if (s.python_diverged) {
      r.status = ScenarioStatus::diverged;
      r.message = *s.python_diverged;
    } else if (s.profile_pass->enabled() && !s.options.out_dir.empty()) {
      r.profile = profile_python(s);
    }
    s.python->finish();
    r.wall_s = std::chrono::duration<double>(Clock::now() - s.built).count();
    return r;
  }
  if (s.profile_pass->enabled() && !s.options.out_dir.empty()) {
    const PrecisionGuard precision_guard(s.params.precision);
    const CudnnBenchmarkGuard cudnn_guard(s.params.cudnn_benchmark);
    const RngStateScope rng(s.rng_state);
    auto profile = s.profile_pass->run(*s.trainer, s.device, s.options.out_dir);
    if (profile.window_step_time_s && r.step_time_s.median > 0)
      profile.overhead_vs_timed = *profile.window_step_time_s / r.step_time_s.median - 1.0;
    r.profile = std::move(profile);
    if (s.group && s.group->size() > 1) gather_rank_traces(s, *r.profile);
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - s.built).count();
  return r;
}

}  // namespace tb
