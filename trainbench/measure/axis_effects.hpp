// The answers a matrix was run for, derived from its measured scenarios: what each setting does
// to speed averaged over the other settings, and the fastest configuration found. Reports show
// them before any table (reporters/findings.hpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <trainbench/measure/stats.hpp>
#include <trainbench/results/results.hpp>

namespace tb {

// The effect of one value of a setting against the baseline's value of that setting.
//   pairs:   scenarios that differ only in this setting, one at `value` and one at `reference`
//            (so "amp_bf16 vs fp32" is measured at w0/a1, at w4/a1, ... separately); for
//            accumulation without such pairs, scenarios at the same effective batch whose
//            micro-batch follows the accumulation (hold_effective_batch: a1/b64 vs a4/b16);
//   speedup: geometric mean over the pairs of the per-sample speedup (per_sample_speedup,
//            comparison.hpp: drift-aware, paired by round), and of their interval bounds: pairs
//            of one run share its conditions, so their errors are not treated as independent
//            and more pairs do not shrink the interval (docs/reading-a-report.md has the repeat
//            runs that decided it). It is the uncertainty of the average over the settings that
//            were measured, not a prediction for other settings: `lowest`..`highest` (the pairs'
//            own speedups) shows how much the effect depends on them.
struct AxisEffect {
  std::string workload;   // workload_of (matrix/axis.hpp); "" when the run has one workload
  std::string axis;       // the scenario axis (matrix/axis.hpp), e.g. "precision"
  std::string value;      // e.g. "amp_bf16"
  std::string reference;  // the baseline's value, e.g. "fp32"
  int pairs = 0;
  int drifted_pairs = 0;  // pairs whose scenario at `value` drifted from its fp32 twin's loss
  stats::RatioInterval speedup;
  double lowest = 0, highest = 0;
  std::string verdict;  // faster | slower | same | noisy (stats::classify)
};

// Per workload (model, dataset; in the order they appear), one entry per value of every knob
// (ScenarioAxis::knob) that takes more than one value among the workload's ok scenarios, other
// than the baseline's value, in axis-table order; a value without any pair (every scenario at it
// also differs elsewhere) is left out, and so is a workload without a baseline
// (workload_reference, comparison.hpp). Empty without a run baseline. Diverged, failed and
// skipped scenarios never pair.
std::vector<AxisEffect> axis_effects(const RunResult& run, double same_threshold = 0.02);

// The fastest configuration of one workload (the scenarios that share every axis that is not a
// knob: model, dataset, device, ranks): its ok scenario with the most samples/s whose loss stayed
// within tolerance of its fp32 twin.
//   vs_reference: against the workload's scenario with the baseline's settings (absent when the
//                 workload has none, e.g. a capacity run whose batches differ);
//   vs_runner_up: against the next fastest, measured directly: "fastest" is a claim only when
//                 that interval excludes 1 (verdict "faster").
struct BestConfiguration {
  std::string workload;  // e.g. "resnet@images (cuda)"; "" when the run has one workload
  std::string id;
  std::string reference_id;  // "" when there is no reference (or the best is it)
  stats::RatioInterval vs_reference;
  std::string verdict_vs_reference;
  std::string runner_up_id;  // "" when it is the only candidate
  stats::RatioInterval vs_runner_up;
  std::string verdict_vs_runner_up;
  std::vector<std::string> faster_but_drifted;  // faster scenarios left out for loss drift
};
// One per workload, in the order the workloads first appear.
std::vector<BestConfiguration> best_configurations(const RunResult& run, double same_threshold = 0.02);

}  // namespace tb
