#include <trainbench/capacity/torch/capacity_search.hpp>

#include <set>
#include <sstream>

#include <ATen/DeviceAccelerator.h>

#include <trainbench/capacity/batch_search.hpp>
#include <trainbench/capacity/byte_size.hpp>
#include <trainbench/capacity/memory_fit.hpp>
#include <trainbench/capacity/torch/utilization_pass.hpp>
#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/torch/environment.hpp>
#include <trainbench/runner/torch/run_finish.hpp>
#include <trainbench/runner/torch/scenario_failure.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/precision.hpp>

namespace tb {

namespace {

// The memory limit a probe must respect: --memory-budget, else matrix capacity.memory_budget,
// else (GPU) the device's total memory. On the CPU a budget is required: an OOM there is the
// kernel's OOM killer, not a polite error.
std::pair<std::int64_t, std::string> memory_limit(const MatrixSpec& spec, const RunOptions& options,
                                                  DeviceKind device) {
  if (options.memory_budget_bytes > 0) return {options.memory_budget_bytes, "--memory-budget"};
  if (spec.capacity.is_object() && spec.capacity.contains("memory_budget")) {
    const auto& v = spec.capacity.at("memory_budget");
    return {v.is_string() ? capacity::parse_byte_size(v.get<std::string>(), "capacity.memory_budget")
                          : v.get<std::int64_t>(),
            "capacity.memory_budget"};
  }
  if (device == DeviceKind::cuda)
    return {static_cast<std::int64_t>(at::accelerator::getMemoryInfo(0).second), "device total"};
  throw InputError(spec.file, "capacity.memory_budget",
                   "a batch search on the CPU needs a memory budget (--memory-budget 4GiB or "
                   "capacity.memory_budget)");
}

int capacity_int(const MatrixSpec& spec, const char* key, int fallback) {
  if (!spec.capacity.is_object() || !spec.capacity.contains(key)) return fallback;
  return spec.capacity.at(key).get<int>();
}

}  // namespace

std::map<std::pair<std::string, std::string>, CapacityFinding> search_capacity(const MatrixSpec& spec,
                                                                               const RunOptions& options,
                                                                               RunResult& run) {
  std::map<std::pair<std::string, std::string>, CapacityFinding> found;
  const auto scenarios = expand(spec);
  if (scenarios.empty()) return found;
  const auto [limit_bytes, limit_source] = memory_limit(spec, options, scenarios.front().device);
  auto& cap = run.capacity.emplace();
  cap.memory_limit_bytes = limit_bytes;
  cap.limit_source = limit_source;
  RunListener* listener = options.listener;

  for (const auto& base : scenarios) {
    const std::pair<std::string, std::string> key{base.model, to_string(base.precision)};
    if (found.count(key)) continue;  // one search per model and precision
    found[key] = {};
    if (!check_precision(base.precision, base.device).supported) continue;
    ScenarioParams probe_params = base;
    probe_params.stopping = {1, 3, 5, 0.05, 2.0};  // a few steps: enough for memory and a rate
    probe_params.profile.enabled = false;
    if (listener) listener->message("capacity: " + base.model + " " + to_string(base.precision) + ": ");
    RunOptions quiet = options;
    quiet.listener = nullptr;
    quiet.memory_budget_bytes = 0;  // fits is decided here
    quiet.out_dir.clear();
    auto try_batch = [&](int batch) {
      capacity::Probe probe;
      probe.batch = batch;
      ScenarioParams p = probe_params;
      p.batch = batch;
      p.effective_batch = batch * p.accumulation;
      try {
        const auto r = run_scenario(p, quiet);
        if (interrupted()) throw Interrupted();  // a cut-short probe says nothing about fitting
        probe.peak_bytes = p.device == DeviceKind::cuda ? r.memory.peak_reserved_bytes : r.memory.peak_rss_bytes;
        probe.fits = capacity::fits_budget(probe.peak_bytes, limit_bytes);
        probe.samples_per_s = r.samples_per_s;
        if (!probe.fits) probe.note = "over the memory limit of " + capacity::format_bytes(limit_bytes);
      } catch (const Interrupted&) { throw; } catch (...) {
        // Out of memory (CUDA, CPU or the budget) means "does not fit"; anything else is the
        // scenario's failure and ends the search.
        ScenarioResult failed;
        record_failure(failed, p, std::current_exception());
        if (failed.status != ScenarioStatus::oom) throw;
        probe.fits = false;
        probe.note = failed.message;
      }
      if (listener) listener->message(std::to_string(batch) + (probe.fits ? "+ " : "- "));
      return probe;
    };
    capacity::BatchSearchOptions search;
    search.start = capacity_int(spec, "start", 8);
    search.limit = capacity_int(spec, "max_batch", 4096);
    search.multiple_of = capacity_int(spec, "multiple_of", 8);  // resolution of the bisection
    if (interrupted()) break;
    capacity::BatchSearchResult result;
    try {
      result = capacity::search_batch(try_batch, search);
    } catch (const Interrupted&) {
      // Ctrl-C (or a time limit's SIGINT): the searches already finished are kept and reported.
      if (listener) listener->message("interrupted\n");
      break;
    }
    found[key] = {result.max_batch, result.best_batch};
    cap.batch_search.push_back(capacity::batch_search_entry(key.first, key.second, result));
    std::string why;
    if (const auto fit = capacity::fit_memory(result.probes, &why))
      cap.memory_fit.push_back(capacity::memory_fit_entry(key.first, key.second, *fit, limit_bytes));
    if (listener) {
      std::ostringstream line;  // samples/s as a stream prints it, as this line always did
      line << "\n  max batch " << result.max_batch << ", fastest batch " << result.best_batch << " ("
           << result.best_samples_per_s << " samples/s)\n";
      listener->message(line.str());
    }
  }
  return found;
}

RunResult run_capacity(const MatrixSpec& spec, const RunOptions& options) {
  RunResult run;
  run.run_id = options.run_id;
  run.matrix_name = spec.name;
  run.matrix_file = spec.file;
  run.environment = capture_environment(options.command_line, spec.defaults.seed);
  const auto found = search_capacity(spec, options, run);
  // Each model and precision measured properly at its throughput-optimal batch, so the report
  // has its step-time distribution, MFU and time-to-train.
  std::set<std::pair<std::string, std::string>> done;
  for (auto p : expand(spec)) {
    const std::pair<std::string, std::string> key{p.model, to_string(p.precision)};
    const auto it = found.find(key);
    if (interrupted()) break;
    if (it == found.end() || it->second.best_batch <= 0 || !done.insert(key).second) continue;
    p.batch = it->second.best_batch;
    p.effective_batch = p.batch * p.accumulation;
    p.profile.enabled = false;
    if (options.listener) options.listener->message("capacity: measuring " + scenario_id(p) + " ... ");
    ScenarioResult r;
    try {
      RunOptions measure = options;
      measure.memory_budget_bytes = 0;  // this batch fit during the search; here it is only timed
      r = run_scenario(p, measure);
    } catch (const Interrupted&) {
      if (options.listener) options.listener->message("interrupted\n");
      break;
    } catch (...) { record_failure(r, p, std::current_exception()); }
    if (options.listener) options.listener->message(std::string(to_string(r.status)) + "\n");
    run.scenarios.push_back(std::move(r));
  }
  // No baseline: each scenario is another model or precision at its own best batch, so a
  // speed-up between them would compare different work (reporters/capacity_comparisons.hpp).
  if (!interrupted()) add_utilization(run, spec, options.listener);
  finish_run(run, options);
  return run;
}

}  // namespace tb
