#include <trainbench/runner/torch/runner.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include <ATen/DeviceAccelerator.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>

#include <trainbench/capacity/memory_probe.hpp>
#include <trainbench/capacity/torch/capacity_search.hpp>
#include <trainbench/capacity/torch/utilization_pass.hpp>
#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/resume_check.hpp>
#include <trainbench/runner/schedule.hpp>
#include <trainbench/runner/torch/environment.hpp>
#include <trainbench/runner/torch/isolated_table.hpp>
#include <trainbench/runner/torch/rank_protocol.hpp>
#include <trainbench/runner/torch/run_finish.hpp>
#include <trainbench/runner/torch/scenario_session.hpp>
#include <trainbench/runner/torch/scenario_table.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>
#include <trainbench/training/torch/registry.hpp>

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

ScenarioResult run_scenario(const ScenarioParams& p, const RunOptions& options) {
  ScenarioSession session(p, options, Clock::now(), 0);
  for (int round = 0; round == 0 || measures_round(p.stopping, round, session.converged()); ++round)
    session.run_segment(round);
  return session.finish();
}

namespace {

// Drives `table` through the schedule of `spec`'s matrix (schedule.hpp). An interrupt stops it
// between segments, and every scenario not finished then is marked "interrupted". `save` runs
// after every round (or scenario).
void run_schedule(ScenarioSet& table, const MatrixSpec& spec, RunListener* listener,
                  const std::function<void()>& save) {
  Schedule schedule(spec.defaults.stopping, spec.defaults.seed);
  ScheduleHooks hooks;
  hooks.stop = [] { return interrupted(); };
  hooks.checkpoint = save;
  if (listener)
    hooks.round_finished = [&](int round, const std::vector<std::size_t>& next) {
      std::vector<std::string> ids;
      for (const std::size_t i : next) ids.push_back(table.id(i));
      listener->round_finished(round, schedule.rule().rounds, ids);
    };
  schedule.run(table, hooks);
}

// Measures the scenarios of `all` (of options.shard when set) that `kept` has no result for, and
// finishes `run` with every such scenario in matrix order: measured now, or kept (from the run
// being resumed).
RunResult measure_and_finish(RunResult run, const MatrixSpec& spec, std::vector<ScenarioParams> all,
                             std::vector<ScenarioResult> kept, const RunOptions& options, Clock::time_point run_start) {
  std::multimap<std::string, ScenarioResult> kept_by_id;
  for (auto& r : kept) kept_by_id.emplace(r.id, std::move(r));
  std::vector<ScenarioParams> todo;
  std::vector<std::size_t> todo_index;  // each one's place in `all` (what an isolated worker knows)
  // `all` stays the whole matrix even for a shard: isolated workers expand the whole matrix again.
  const auto in_shard = shard_members(all, options.shard.value_or(Shard{}));
  for (auto& p : all) {
    if (options.profile) p.profile.enabled = *options.profile;
    const auto at = static_cast<std::size_t>(&p - all.data());
    if (in_shard[at] && !kept_by_id.count(scenario_id(p))) {
      todo_index.push_back(at);
      todo.push_back(p);
    }
  }
  // Scenarios measured by a resume say which (segments pair only within one pass).
  const int pass = run.provenance.pass();
  // Ids repeat when scenarios differ only outside the axes: each result is taken once, in order.
  auto in_matrix_order = [&](std::vector<ScenarioResult> fresh) {
    std::multimap<std::string, ScenarioResult> fresh_by_id, kept_left = kept_by_id;
    for (auto& r : fresh) {
      r.provenance.measured_in_resume = pass;
      fresh_by_id.emplace(r.id, std::move(r));
    }
    std::vector<ScenarioResult> out;
    for (std::size_t at = 0; at < all.size(); ++at) {
      if (!in_shard[at]) continue;
      for (auto* from : {&fresh_by_id, &kept_left})
        if (const auto it = from->find(scenario_id(all[at])); it != from->end()) {
          out.push_back(std::move(it->second));
          from->erase(it);
          // Which shard measured it (segments pair only within one), and its place in the whole
          // matrix (merge's order).
          if (options.shard) mark_shard(out.back(), *options.shard, at);
          break;
        }
    }
    return out;
  };

  const std::string results_path = options.out_dir.empty() ? "" : (fs::path(options.out_dir) / "results.json").string();
  const StoppingRule& rule = spec.defaults.stopping;
  const std::int64_t base_rss = rule.interleave ? current_rss_bytes() : 0;
  // --isolate: the same schedule, each scenario in its own worker process (isolated_table.hpp).
  std::unique_ptr<ScenarioSet> scenario_set;
  if (options.isolate) {
    run.provenance.isolated = true;
    scenario_set = std::make_unique<IsolatedScenarioTable>(
        std::move(todo), std::move(todo_index), scenarios_digest(all), spec.file, options, run_start, options.listener);
  } else if (options.world) {
    // Several ranks: rank 0 leads, the others follow its commands (rank_protocol.hpp).
    run.provenance.ranks = RanksProvenance{options.world->size(), options.world->environment().local_world_size,
                                           options.world->environment().launcher};
    scenario_set = std::make_unique<LeaderScenarioTable>(
        options.world, std::make_unique<ScenarioTable>(std::move(todo), options, run_start, base_rss, options.listener),
        options.out_dir);
  } else {
    scenario_set = std::make_unique<ScenarioTable>(std::move(todo), options, run_start, base_rss, options.listener);
  }
  ScenarioSet& table = *scenario_set;
  auto save = [&]() {
    if (results_path.empty()) return;
    run.scenarios = in_matrix_order(table.snapshot());
    save_results(run, results_path);
  };
  run_schedule(table, spec, options.listener, save);
  run.scenarios = in_matrix_order(table.take_results());
  scenario_set.reset();  // every scenario is done: a data-parallel run's other ranks may exit
  if (!results_path.empty()) save_results(run, results_path);
  // The matmul peaks take seconds: a stopped run stops now, and its resume measures them.
  if (!interrupted()) add_utilization(run, spec, options.listener);
  finish_run(run, options);
  return run;
}

}  // namespace

RunResult run_matrix(const MatrixSpec& spec, const RunOptions& options) {
  const auto run_start = Clock::now();
  RunResult run;
  run.run_id = options.run_id.empty() ? make_run_id(spec) : options.run_id;
  run.matrix_name = spec.name;
  run.matrix_file = spec.file;
  run.environment = capture_environment(options.command_line, spec.defaults.seed);
  if (!options.code_under_test.empty()) run.environment["code_under_test"] = options.code_under_test;
  auto scenarios = expand(spec);
  if (spec.batch_search) {  // batch "max": each scenario takes the largest batch that fits
    try {
      const auto found = search_capacity(spec, options, run);
      for (auto& p : scenarios) {
        const auto it = found.find({p.model, to_string(p.precision)});
        if (it != found.end() && it->second.max_batch > 0) {
          p.batch = it->second.max_batch;
          p.effective_batch = p.batch * p.accumulation;
        }
      }
    } catch (const Interrupted&) {
      // Nothing is measured below: every scenario is recorded as interrupted.
    }
  }
  run.matrix_digest = scenarios_digest(scenarios);
  const auto baseline = choose_baseline(spec, scenarios);
  if (!scenarios.empty()) run.baseline_id = scenario_id(scenarios[baseline.index]);
  // A shard keeps the whole matrix's baseline (every shard records the same, in its results or
  // not) and digest (in provenance.shard, for merge); its own digest is that of what it measures, so
  // that `compare --against last` finds the same shard of an earlier run.
  const auto measured = shard_scenarios(scenarios, options.shard.value_or(Shard{}));
  if (options.shard) {
    run.provenance.shard = shard_record(*options.shard, scenarios);
    run.matrix_digest = scenarios_digest(measured);
  }
  const StoppingRule& rule = spec.defaults.stopping;
  if (options.listener)
    options.listener->run_started({spec.name, run.run_id, run.environment.value("device", "cpu"), options.out_dir,
                                   measured.size(), scenarios.size(), rule.rounds, rule.interleave, false,
                                   options.shard ? to_string(*options.shard) : ""});
  return measure_and_finish(std::move(run), spec, std::move(scenarios), {}, options, run_start);
}

std::vector<ScenarioParams> scenarios_as_run(const MatrixSpec& spec, const RunResult& run) {
  auto scenarios = expand(spec);
  if (!spec.batch_search) return scenarios;
  // batch "max" was resolved by the capacity search of that run, per model and precision.
  for (auto& p : scenarios)
    for (const auto& r : run.scenarios)
      if (r.params.model == p.model && r.params.precision == p.precision) {
        p.batch = r.params.batch;
        p.effective_batch = p.batch * p.accumulation;
        break;
      }
  return scenarios;
}

RunResult resume_matrix(const MatrixSpec& spec, RunResult previous, const RunOptions& options,
                        const ResumeRecord& record) {
  const auto run_start = Clock::now();
  auto scenarios = scenarios_as_run(spec, previous);
  const auto measured = shard_scenarios(scenarios, options.shard.value_or(Shard{}));
  std::vector<ScenarioResult> kept;
  for (auto& r : previous.scenarios)
    if (!needs_rerun(r)) kept.push_back(std::move(r));
  std::vector<std::string> rerun;
  for (const auto& p : measured) {
    const auto id = scenario_id(p);
    if (std::none_of(kept.begin(), kept.end(), [&](const ScenarioResult& r) { return r.id == id; }))
      rerun.push_back(id);
  }
  RunResult run = std::move(previous);  // same run id, environment and baseline
  run.scenarios.clear();
  run.matrix_digest = scenarios_digest(measured);  // a shard's own (provenance.shard keeps the matrix's)
  run.provenance.resume =
      ResumeProvenance{run.provenance.pass() + 1, record.resumed_at, rerun, !record.forced.empty(), record.forced};
  if (options.listener)
    options.listener->run_started({spec.name, run.run_id, run.environment.value("device", "cpu"), options.out_dir,
                                   rerun.size(), measured.size(), spec.defaults.stopping.rounds,
                                   spec.defaults.stopping.interleave, true,
                                   options.shard ? to_string(*options.shard) : ""});
  return measure_and_finish(std::move(run), spec, std::move(scenarios), std::move(kept), options, run_start);
}

}  // namespace tb
