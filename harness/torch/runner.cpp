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
#include "harness/torch/isolated_table.hpp"
#include "harness/torch/scenario_session.hpp"
#include "harness/torch/scenario_table.hpp"
#include "harness/torch/run_finish.hpp"
#include "harness/torch/utilization_pass.hpp"

namespace tb {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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

  for (auto& p : scenarios)
    if (options.profile) p.profile.enabled = *options.profile;
  const std::int64_t base_rss = rule.interleave ? current_rss_bytes() : 0;
  // --isolate: the same schedule, each scenario in its own worker process (isolated_table.hpp).
  std::unique_ptr<ScenarioSet> scenario_set;
  if (options.isolate) {
    run.extra["isolated"] = true;
    scenario_set = std::make_unique<IsolatedScenarioTable>(scenarios, spec.file, options, run_start, out);
  } else {
    scenario_set = std::make_unique<ScenarioTable>(scenarios, options, run_start, base_rss, out);
  }
  ScenarioSet& table = *scenario_set;
  auto save = [&]() {
    if (results_path.empty()) return;
    run.scenarios = table.snapshot();
    save_results(run, results_path);
  };

  if (rule.interleave) {
    // A new shuffled order every round, so no scenario always follows the same neighbour.
    std::mt19937_64 rng(spec.defaults.seed ^ 0x5e6d5e6dULL);
    std::vector<std::size_t> order(table.size());
    std::iota(order.begin(), order.end(), 0);
    for (int round = 0; round < rule.max_rounds; ++round) {
      std::shuffle(order.begin(), order.end(), rng);
      bool any = false;
      for (const std::size_t i : order) {
        if (!table.active(i)) continue;
        // Past the planned rounds only the scenarios whose interval is still too wide go on.
        if (round >= rule.rounds && table.converged(i)) {
          table.finish(i);
          continue;
        }
        table.segment(i, round);
        any = true;
      }
      if (out && any)
        *out << "round " << round + 1 << (round < rule.rounds ? "/" + std::to_string(rule.rounds) : " (extra)")
             << " done, " << static_cast<int>(std::chrono::duration<double>(Clock::now() - run_start).count())
             << " s\n" << std::flush;
      save();
      if (!any) break;
    }
    table.finish_all();
  } else {
    for (std::size_t i = 0; i < table.size(); ++i) {
      for (int round = 0; table.active(i) && round < rule.max_rounds; ++round) {
        if (round >= rule.rounds && table.converged(i)) break;
        table.segment(i, round);
      }
      if (table.active(i)) table.finish(i);
      save();
    }
  }
  run.scenarios = table.take_results();
  if (!results_path.empty()) save_results(run, results_path);
  add_utilization(run, spec, options.progress);
  finish_run(run, options);
  return run;
}

}  // namespace tb
