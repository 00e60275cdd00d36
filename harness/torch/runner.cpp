#include "harness/torch/runner.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <random>

#include <ATen/DeviceAccelerator.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>

#include "harness/capacity/memory_probe.hpp"
#include "harness/core/error.hpp"
#include "harness/torch/capacity_search.hpp"
#include "harness/torch/registry.hpp"
#include "harness/torch/environment.hpp"
#include "harness/torch/scenario_session.hpp"
#include "harness/torch/run_finish.hpp"
#include "harness/torch/utilization_pass.hpp"

namespace tb {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The one place where a scenario's exception becomes its status.
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
}

std::int64_t current_rss_bytes() {
  const capacity::PeakRssProbe probe(capacity::PeakRssProbe::Mode::sampling);
  return probe.current_rss_bytes();
}

// The interleaved schedule: one slot per scenario, alive from its first segment to its finish.
struct Slot {
  ScenarioParams params;
  std::unique_ptr<ScenarioSession> session;
  std::optional<ScenarioResult> result;  // set once finished (ok or not)
};

void print_outcome(std::ostream* out, std::size_t index, std::size_t total, const ScenarioResult& r) {
  if (!out) return;
  *out << "[" << index + 1 << "/" << total << "] " << r.id << " ... ";
  if (r.status == ScenarioStatus::ok || r.status == ScenarioStatus::diverged) {
    char line[200];
    if (r.step_time_s.has_interval())
      std::snprintf(line, sizeof line, "%.2f ms/step [%.2f, %.2f]  %.1f samples/s  (%d steps, %zu segments, %s)",
                    r.step_time_s.median * 1e3, r.step_time_s.ci_low * 1e3, r.step_time_s.ci_high * 1e3,
                    r.samples_per_s, r.measured_steps, r.segments.size(), r.stop_reason.c_str());
    else
      std::snprintf(line, sizeof line, "%.2f ms/step (no interval)  %.1f samples/s  (%d steps, %zu segments)",
                    r.step_time_s.median * 1e3, r.samples_per_s, r.measured_steps, r.segments.size());
    *out << to_string(r.status) << "  " << line;
    if (r.contended()) *out << "  CONTENDED";
    if (r.status == ScenarioStatus::diverged) *out << "\n      " << r.message;
    *out << "\n";
  } else {
    *out << to_string(r.status) << ": " << r.message << "\n";
  }
  out->flush();
}

}  // namespace

bool cuda_available() { return torch::cuda::is_available(); }

MatrixParseOptions default_parse_options() {
  MatrixParseOptions o;
  Registry::instance().fill_parse_options(o);
  o.cuda_available = cuda_available();
  return o;
}

ScenarioResult run_scenario(const ScenarioParams& p, const RunOptions& options,
                            const std::string& trace_stem) {
  ScenarioSession session(p, options, trace_stem.empty() ? safe_file_stem(scenario_id(p)) : trace_stem,
                          Clock::now(), 0);
  for (int round = 0; round < std::max(1, p.stopping.rounds); ++round) session.run_segment(round);
  while (session.segments() < p.stopping.max_rounds && !session.converged())
    session.run_segment(session.segments());
  return session.finish();
}

RunResult run_matrix(const MatrixSpec& spec, const RunOptions& options) {
  const auto run_start = Clock::now();
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
  run.matrix_digest = scenarios_digest(scenarios);
  const auto baseline = choose_baseline(spec, scenarios);
  if (!scenarios.empty()) run.baseline_id = scenario_id(scenarios[baseline.index]);
  const std::string results_path =
      options.out_dir.empty() ? "" : (fs::path(options.out_dir) / "results.json").string();
  auto* out = options.progress;
  const StoppingRule& rule = spec.defaults.stopping;
  if (out)
    *out << "trainbench: matrix '" << spec.name << "' (" << scenarios.size() << " scenarios, "
         << rule.rounds << " rounds" << (rule.interleave ? ", interleaved" : "") << ") on "
         << run.environment.value("device", "cpu") << ", results in "
         << (options.out_dir.empty() ? "(not saved)" : options.out_dir) << "\n";

  std::vector<Slot> slots(scenarios.size());
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    slots[i].params = scenarios[i];
    if (options.profile) slots[i].params.profile.enabled = *options.profile;
  }
  const std::int64_t base_rss = rule.interleave ? current_rss_bytes() : 0;
  std::size_t finished = 0;

  auto fail = [&](std::size_t i, std::exception_ptr error) {
    ScenarioResult r;
    record_failure(r, slots[i].params, error);
    slots[i].session.reset();
    slots[i].result = std::move(r);
    print_outcome(out, finished++, slots.size(), *slots[i].result);
  };
  auto finish = [&](std::size_t i) {
    try {
      slots[i].result = slots[i].session->finish();
      slots[i].session.reset();
      print_outcome(out, finished++, slots.size(), *slots[i].result);
    } catch (...) {
      fail(i, std::current_exception());
    }
  };
  auto segment = [&](std::size_t i, int round) {
    try {
      if (!slots[i].session)
        slots[i].session = std::make_unique<ScenarioSession>(
            slots[i].params, options, safe_file_stem(scenario_id(slots[i].params)), run_start,
            base_rss);
      slots[i].session->run_segment(round);
    } catch (...) {
      fail(i, std::current_exception());
    }
  };
  auto save = [&]() {
    if (results_path.empty()) return;
    run.scenarios.clear();
    for (const auto& slot : slots)
      if (slot.result) run.scenarios.push_back(*slot.result);
      else if (slot.session) run.scenarios.push_back(slot.session->snapshot());
    save_results(run, results_path);
  };
  auto active = [&](std::size_t i) { return !slots[i].result.has_value(); };

  if (rule.interleave) {
    // A new shuffled order every round, so no scenario always follows the same neighbour.
    std::mt19937_64 rng(spec.defaults.seed ^ 0x5e6d5e6dULL);
    std::vector<std::size_t> order(slots.size());
    std::iota(order.begin(), order.end(), 0);
    for (int round = 0; round < rule.max_rounds; ++round) {
      std::shuffle(order.begin(), order.end(), rng);
      bool any = false;
      for (const std::size_t i : order) {
        if (!active(i)) continue;
        // Past the planned rounds only the scenarios whose interval is still too wide go on.
        if (round >= rule.rounds && slots[i].session && slots[i].session->converged()) {
          finish(i);
          continue;
        }
        segment(i, round);
        any = true;
      }
      if (out && any)
        *out << "round " << round + 1 << (round < rule.rounds ? "/" + std::to_string(rule.rounds) : " (extra)")
             << " done, " << static_cast<int>(std::chrono::duration<double>(Clock::now() - run_start).count())
             << " s\n" << std::flush;
      save();
      if (!any) break;
    }
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (active(i)) finish(i);
  } else {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      for (int round = 0; active(i) && round < rule.max_rounds; ++round) {
        if (round >= rule.rounds && slots[i].session->converged()) break;
        segment(i, round);
      }
      if (active(i)) finish(i);
      save();
    }
  }
  run.scenarios.clear();
  for (auto& slot : slots) run.scenarios.push_back(std::move(*slot.result));
  if (!results_path.empty()) save_results(run, results_path);
  add_utilization(run, spec, options.progress);
  finish_run(run, options);
  return run;
}

}  // namespace tb
