#include "harness/torch/runner.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include <malloc.h>

#include <ATen/Context.h>
#include <ATen/DeviceAccelerator.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include "harness/capacity/flops.hpp"
#include "harness/capacity/memory_probe.hpp"
#include "harness/core/error.hpp"
#include "harness/core/stats.hpp"
#include "harness/profiling/nvtx.hpp"
#include "harness/torch/batch_stream.hpp"
#include "harness/torch/capacity_search.hpp"
#include "harness/torch/environment.hpp"
#include "harness/torch/precision.hpp"
#include "harness/torch/profile_pass.hpp"
#include "harness/torch/run_finish.hpp"
#include "harness/torch/trainer.hpp"
#include "harness/torch/utilization_pass.hpp"

namespace tb {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The scenario's peak memory went past --memory-budget: the CPU's stand-in for a CUDA OOM.
struct MemoryBudgetExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

c10::Device resolve_device(const std::string& device) {
  return device == "cuda" ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
}

std::shared_ptr<SampleSource> make_source(const ScenarioParams& p) {
  const auto& model = Registry::instance().model(p.model);
  const std::string name = p.dataset.empty() ? model.default_dataset : p.dataset;
  nlohmann::json options = model.default_dataset_options;
  options.merge_patch(p.dataset_options);
  return Registry::instance().dataset(name).factory(DatasetRequest{options, p.seed});
}

// Peak memory of one scenario: the caching allocator on a GPU, the process RSS everywhere.
class MemoryWatch {
 public:
  explicit MemoryWatch(c10::Device device) : device_(device) {
    if (device_.is_cuda()) {
      at::accelerator::synchronizeDevice(device_.index());
      at::accelerator::emptyCache();
      at::accelerator::resetPeakStats(device_.index());
      at::accelerator::resetAccumulatedStats(device_.index());
    }
    // Hand freed heap back to the OS first: otherwise memory an earlier (larger) scenario freed
    // but glibc kept would count towards this scenario's peak RSS.
    malloc_trim(0);
    rss_.reset();
  }
  MemoryStats read() const {
    MemoryStats m;
    m.peak_rss_bytes = rss_.peak_rss_bytes();
    if (device_.is_cuda()) {
      const auto stats = at::accelerator::getDeviceStats(device_.index());
      constexpr auto kAll = 0;  // StatType::AGGREGATE
      m.peak_allocated_bytes = stats.allocated_bytes[kAll].peak;
      m.peak_reserved_bytes = stats.reserved_bytes[kAll].peak;
      m.alloc_retries = stats.num_alloc_retries;
    }
    return m;
  }

 private:
  c10::Device device_;
  capacity::PeakRssProbe rss_;
};

void fill_timing(ScenarioResult& r, const std::vector<StepSample>& steps, std::int64_t items,
                 std::int64_t tokens_per_sample) {
  r.step_times_s.clear();
  std::array<std::vector<double>, kPhaseCount> phase;
  for (const auto& s : steps) {
    r.step_times_s.push_back(s.step_s);
    for (std::size_t i = 0; i < kPhaseCount; ++i) phase[i].push_back(s.phase_s[i]);
  }
  r.measured_steps = static_cast<int>(steps.size());
  r.step_time_s = stats::summarize(r.step_times_s);
  if (r.step_time_s.median > 0) {
    r.samples_per_s = static_cast<double>(items) / r.step_time_s.median;
    r.tokens_per_s = r.samples_per_s * static_cast<double>(tokens_per_sample);
  }
  double total = 0;
  r.phases.clear();
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    PhaseStat ps;
    ps.name = kPhaseNames[i];
    ps.median_s = stats::median(phase[i]);
    ps.mean_s = stats::mean(phase[i]);
    total += ps.mean_s;
    r.phases.push_back(ps);
  }
  for (auto& ps : r.phases) ps.share = total > 0 ? ps.mean_s / total : 0;
}

std::string safe_file_stem(const std::string& id) {
  std::string s = id;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return s;
}

}  // namespace

std::string make_run_id(const MatrixSpec& spec) {
  const auto t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::gmtime(&t));
  return std::string(buf) + "-" + safe_file_stem(spec.name);
}

bool cuda_available() { return torch::cuda::is_available(); }

MatrixParseOptions default_parse_options() {
  MatrixParseOptions o;
  Registry::instance().fill_parse_options(o);
  o.cuda_available = cuda_available();
  return o;
}

ScenarioResult run_scenario(const ScenarioParams& p, const RunOptions& options,
                            const std::string& trace_stem) {
  const auto wall_start = Clock::now();
  TB_NVTX_SCENARIO(scenario_id(p));
  ScenarioResult r;
  r.id = scenario_id(p);
  r.params = p;
  const auto support = check_precision(p.precision, p.device);
  if (!support.supported) throw ScenarioSkipped(support.reason);
  const c10::Device device = resolve_device(p.device);
  const PrecisionGuard precision_guard(p.precision);
  torch::manual_seed(p.seed);

  // Outlives the loader's worker threads, which may record spans until they are joined.
  ProfilePass profile_pass(p, options.profile);
  auto source = make_source(p);
  auto model = Registry::instance().model(p.model).factory(p.model_options, source->info());
  BatchStream stream(source, p.batch, p.workers);
  Trainer trainer(p, *model, stream, device);
  MemoryWatch memory(device);

  StepSample sample;
  int step = 0;
  for (int i = 0; i < p.stopping.warmup_steps; ++i, ++step) {
    if (options.test_hook) options.test_hook(p, step);
    trainer.step(sample);
    r.loss_curve.push_back(sample.loss);
  }
  r.warmup_steps = p.stopping.warmup_steps;

  std::vector<StepSample> measured;
  measured.reserve(static_cast<std::size_t>(p.stopping.max_steps));
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(p.stopping.max_steps));
  double measured_s = 0;
  r.stop_reason = "max_steps";
  while (static_cast<int>(measured.size()) < p.stopping.max_steps) {
    if (options.test_hook) options.test_hook(p, step);
    trainer.step(sample);
    ++step;
    measured.push_back(sample);
    times.push_back(sample.step_s);
    r.loss_curve.push_back(sample.loss);
    measured_s += sample.step_s;
    if (static_cast<int>(measured.size()) < p.stopping.min_steps) continue;
    if (stats::relative_ci_halfwidth(stats::summarize(times)) <= p.stopping.target_rel_ci) {
      r.stop_reason = "converged";
      break;
    }
    if (measured_s >= p.stopping.time_budget_s) {
      r.stop_reason = "time_budget";
      break;
    }
  }
  r.memory = memory.read();

  const std::int64_t tokens = model->tokens_per_sample();
  fill_timing(r, measured, p.effective_batch, tokens);
  r.loss_start = r.loss_curve.empty() ? 0 : r.loss_curve.front();
  r.loss_end = r.loss_curve.empty() ? 0 : r.loss_curve.back();
  r.skipped_steps = trainer.scaler().skipped_steps();
  r.final_loss_scale = trainer.scaler().enabled() ? trainer.scaler().scale_value() : 0.0;

  r.extra["dataset"] = {{"samples", source->size()}};
  const auto layers = model->layers_per_sample();
  if (!layers.empty()) r.extra["flops_per_sample"] = capacity::count_flops(layers);

  if (options.memory_budget_bytes > 0 && r.memory.peak_rss_bytes > options.memory_budget_bytes)
    throw MemoryBudgetExceeded("peak RSS " + std::to_string(r.memory.peak_rss_bytes) +
                               " bytes exceeds the memory budget of " +
                               std::to_string(options.memory_budget_bytes) + " bytes");

  // Profiling is its own pass after the timed steps, so it never distorts the timing figures.
  if (profile_pass.enabled() && !options.out_dir.empty()) {
    auto profile = profile_pass.run(trainer, device, options.out_dir,
                                    trace_stem.empty() ? safe_file_stem(r.id) : trace_stem);
    if (profile.contains("window_step_time_s") && r.step_time_s.median > 0)
      profile["overhead_vs_timed"] =
          profile["window_step_time_s"].get<double>() / r.step_time_s.median - 1.0;
    r.extra["profile"] = std::move(profile);
  }

  r.wall_s = std::chrono::duration<double>(Clock::now() - wall_start).count();
  return r;
}

RunResult run_matrix(const MatrixSpec& spec, const RunOptions& options) {
  RunResult run;
  run.run_id = options.run_id.empty() ? make_run_id(spec) : options.run_id;
  run.matrix_name = spec.name;
  run.matrix_file = spec.file;
  run.environment = capture_environment(options.command_line, spec.defaults.seed);
  auto scenarios = expand(spec);
  if (spec.batch_search) {  // batch "max": each scenario takes the largest batch that fits
    const auto found = search_capacity(spec, options, run);
    for (auto& p : scenarios) {
      const auto it = found.find({p.model, to_string(p.precision)});
      if (it != found.end() && it->second.max_batch > 0) {
        p.batch = it->second.max_batch;
        p.effective_batch = p.batch * p.accumulation;
      }
    }
  }
  const auto baseline = choose_baseline(spec, scenarios);
  if (!scenarios.empty()) run.baseline_id = scenario_id(scenarios[baseline.index]);
  const std::string results_path =
      options.out_dir.empty() ? "" : (fs::path(options.out_dir) / "results.json").string();
  auto* out = options.progress;
  if (out)
    *out << "trainbench: matrix '" << spec.name << "' (" << scenarios.size() << " scenarios) on "
         << run.environment.value("device", "cpu") << ", results in "
         << (options.out_dir.empty() ? "(not saved)" : options.out_dir) << "\n";

  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const auto& p = scenarios[i];
    ScenarioParams params = p;
    if (options.profile) params.profile.enabled = *options.profile;
    if (out) *out << "[" << (i + 1) << "/" << scenarios.size() << "] " << scenario_id(p) << " ... " << std::flush;
    ScenarioResult r;
    try {
      r = run_scenario(params, options, safe_file_stem(scenario_id(p)));
    } catch (const ScenarioSkipped& e) {
      r.status = ScenarioStatus::skipped;
      r.message = e.what();
    } catch (const c10::OutOfMemoryError& e) {
      r.status = ScenarioStatus::oom;
      r.message = std::string("CUDA out of memory: ") + e.what_without_backtrace();
      if (params.device == "cuda") at::accelerator::emptyCache();
    } catch (const MemoryBudgetExceeded& e) {
      r.status = ScenarioStatus::oom;
      r.message = e.what();
    } catch (const c10::Error& e) {
      r.status = ScenarioStatus::failed;
      r.message = e.what_without_backtrace();
    } catch (const std::exception& e) {
      r.status = ScenarioStatus::failed;
      r.message = e.what();
    }
    if (r.status != ScenarioStatus::ok) {
      r.id = scenario_id(p);
      r.params = params;
    }
    run.scenarios.push_back(std::move(r));
    const auto& done = run.scenarios.back();
    if (out) {
      if (done.status == ScenarioStatus::ok) {
        char line[160];
        std::snprintf(line, sizeof line, "ok  %.2f ms/step  %.1f samples/s  (%d steps, %s)\n",
                      done.step_time_s.median * 1e3, done.samples_per_s, done.measured_steps,
                      done.stop_reason.c_str());
        *out << line;
      } else {
        *out << to_string(done.status) << ": " << done.message << "\n";
      }
      out->flush();
    }
    if (!results_path.empty()) save_results(run, results_path);
  }
  add_utilization(run, spec, options.progress);
  finish_run(run, options);
  return run;
}

}  // namespace tb
