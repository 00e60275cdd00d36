// Comparisons of scenarios: within one run (speedup vs the baseline scenario, loss parity of
// reduced precision vs fp32, a run summary) and between two runs (per-scenario change with an
// interval, verdicts, environment check, CI regression gate, A/A noise floor).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/measure/sequential_test.hpp>
#include <trainbench/measure/stats.hpp>
#include <trainbench/results/results.hpp>

namespace tb {

// ------------------------------------------------------------------ within one run

struct AnnotateOptions {
  std::string baseline_id;       // overrides run.baseline_id when not empty
  double same_threshold = 0.02;  // |speedup - 1| band treated as "same"
  double loss_tolerance = 0.05;  // largest relative loss drift of tf32/amp vs fp32 that is "ok"
};

// Fills, for every ok scenario:
//   comparison (ComparisonSection): speedup =
//       its workload baseline's per-sample time / this per-sample time (per-sample = step time /
//       effective batch, over every rank for a data-parallel scenario, so scenarios with
//       different batch sizes compare by throughput; with equal batches this is
//       baseline_median / this_median). A workload's baseline is its scenario with the run
//       baseline's settings (workload_baseline): with several workloads (model, dataset), each is
//       measured against its own, never against another model. Each workload baseline gets
//       "baseline"; a workload without one gets no comparisons.
//   loss_parity (LossParitySection; every precision but the reference): the scenario at
//       loss_reference_precision() (precision_table.hpp) with the same other parameters (and
//       seed) is the reference; see loss_drift().
// and run.summary: a count per status, contended, compared, the geometric mean of the baseline
// workload's non-baseline speedups (see stats::geometric_mean), 1 [1, 1] when the baseline is
// the only ok scenario of its workload, and with several workloads one WorkloadSummary each.
// Diverged scenarios are never compared. Without any workload baseline (the run's baseline is
// not ok and no workload has its settings) neither comparisons nor the summary are written.
// First of all, run.scaling and the data-parallel efficiencies (measure/scaling.hpp), with or
// without a baseline.
void annotate_run(RunResult& run, const AnnotateOptions& options = {});

// The scenario a workload's speed-ups are measured against as the run records it (its
// comparison's verdict is "baseline"), else workload_baseline: what the findings pair with.
const ScenarioResult* workload_reference(const RunResult& run, const std::string& workload);

// annotate_run's speed-ups and summary alone, anew: every comparison and the summary are
// replaced (loss parity and scaling are left as they are).
void compare_within_workloads(RunResult& run, const std::string& baseline_id = "", double same_threshold = 0.02);

// Whether some scenario's comparison is against a scenario of another workload: results written
// before speed-ups were per workload (GPT-2 against ResNet-50's baseline). Reporters render such
// a run after compare_within_workloads.
bool compared_across_workloads(const RunResult& run);

// The run's workloads (workload_of, matrix/axis.hpp), in the order their scenarios first appear.
std::vector<std::string> run_workloads(const RunResult& run);

// The scenario of `workload` measured at the settings (settings_key) of the run's baseline
// (`baseline_id` when given): what that workload's speed-ups are measured against. nullptr when
// the workload has no timed scenario at those settings (excluded, failed) or there is no baseline.
const ScenarioResult* workload_baseline(const RunResult& run, const std::string& workload,
                                        const std::string& baseline_id = "");

// Speedup of `candidate` over `baseline` in step time: ratio = median(baseline) / median(candidate)
// of all measured steps, with a 95% interval from segments (segment_stats.hpp): paired by round
// when both were measured in the same rounds of one interleaved run (within a run), Welch's
// unpaired interval otherwise (e.g. two runs). Invalid (no interval, verdict "noisy") when either
// side has too few segments.
stats::RatioInterval step_time_speedup(const ScenarioResult& baseline, const ScenarioResult& candidate,
                                       bool paired = true, double coverage = 0.95);

// Speedup of `candidate` over `baseline` per sample, both scenarios of one run: the step-time
// speedup above (paired by round when they were interleaved in one session) scaled by the ratio
// of their global batches, so scenarios with different batch or accumulation compare by
// throughput. What annotate_run writes into each comparison, and what axis effects pair.
stats::RatioInterval per_sample_speedup(const ScenarioResult& baseline, const ScenarioResult& candidate);

// Whether a scenario's step times were measured (status ok with a median): it can be compared.
bool has_step_timing(const ScenarioResult& s);

// Relative drift of a loss curve from a reference trained with the same seed. Scenarios stop
// after different step counts, so both curves are compared on their common prefix: the mean of
// its last (up to 5) steps, |this - ref| / max(|ref|, 1e-12). Without curves, loss_end is used.
// A non-finite loss gives the largest double.
struct LossDrift {
  double rel_drift = 0;
  std::size_t steps_compared = 0;
};
// The drift of the last steps both curves have, relative to the reference's loss there, or to
// kLossDriftFloor of the reference's first loss when that is larger (a memorized, nearly zero loss).
inline constexpr double kLossDriftFloor = 0.05;
LossDrift loss_drift(const ScenarioResult& scenario, const ScenarioResult& reference);

// ------------------------------------------------------------------ between two runs

// Raised by compare_runs when the two runs were measured on different hardware.
class EnvironmentMismatch : public std::runtime_error {
 public:
  explicit EnvironmentMismatch(const std::vector<std::string>& differences);
  const std::vector<std::string>& differences() const noexcept { return differences_; }

 private:
  std::vector<std::string> differences_;
};

// Hardware differences between two environment manifests, e.g. "cpu.model: 'A' vs 'B'":
// cpu.model, device, gpu names and count (gpu may be an array of {name} or one {name, count}).
// Missing keys count as empty. An empty result means comparable.
std::vector<std::string> environment_differences(const nlohmann::json& old_env, const nlohmann::json& new_env);
// The same for the fields at `pointers` ("/torch", "/cpu/threads_used"), e.g. "torch: '2.11.0' vs
// '2.10.0'" (a non-string value as its JSON text).
std::vector<std::string> environment_field_differences(const nlohmann::json& old_env, const nlohmann::json& new_env,
                                                       const std::vector<std::string>& pointers);

// An A/A |change| beyond this is not noise of a working setup but a broken measurement (the
// machine was loaded during one run): such a noise floor would let real regressions through,
// so it is refused.
inline constexpr double kMaxPlausibleNoisePct = 50.0;

// Raised when an A/A comparison or a noise file is not a credible noise floor.
class ImplausibleNoise : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Per-scenario A/A noise floors, keyed by scenario_key; see make_noise_floor().
struct NoiseFloor {
  struct Entry {
    std::string id;
    nlohmann::json key;
    double abs_change_pct = 0;      // |observed change| of the A/A pair, percent
    double interval_width_pct = 0;  // (high - low) of the A/A speedup interval, percent
  };
  std::vector<Entry> entries;
  // Where it came from: {old_run_id, new_run_id, old_path, new_path, created_at, environment
  // (cpu model, device, gpu)}.
  nlohmann::json source = nlohmann::json::object();

  const Entry* find(const nlohmann::json& key) const;
};
void to_json(nlohmann::json& j, const NoiseFloor& n);
// InputError naming the file and field; ImplausibleNoise when an entry exceeds
// kMaxPlausibleNoisePct.
NoiseFloor load_noise_floor(const std::string& path);
// Durable like save_results; OutputError when it cannot be written.
void save_noise_floor(const NoiseFloor& n, const std::string& path);

struct CompareOptions {
  double same_threshold = 0.02;
  bool allow_env_mismatch = false;
  // CI gate: a scenario regresses when even the optimistic end of its old/new speedup interval
  // is below 1 - pct/100, where pct = max(fail_on_regression_pct, its A/A abs_change_pct);
  // the new run's matrix may set pct per scenario (params.gates.step_time_pct replaces
  // fail_on_regression_pct) and add thresholds on peak memory and loss (gate_thresholds.hpp),
  // judged only when the gate is on. The
  // gate asks k questions at once (one per compared scenario), so it judges each on a
  // Bonferroni interval of coverage 1 - 0.05/k: the chance that an A/A pair fails the gate
  // somewhere stays at 5%, not k x 5%. The table shows the ordinary 95% intervals.
  // A scenario that was ok in OLD and is failed / oom / diverged / interrupted / crashed /
  // missing in NEW is "broken" and fails the gate too, unless allow_broken.
  std::optional<double> fail_on_regression_pct;
  bool allow_broken = false;
  NoiseFloor noise;
};

struct ScenarioComparison {
  std::string id;
  std::string workload;  // workload_of (matrix/axis.hpp)
  nlohmann::json key;
  ScenarioStatus old_status = ScenarioStatus::ok, new_status = ScenarioStatus::ok;
  bool compared = false;  // both ok with timings; otherwise the fields below are unset
  double old_median_s = 0, new_median_s = 0;
  stats::RatioInterval speedup;  // old / new: > 1 means the new run is faster
  double change_pct = 0;         // (1 / speedup - 1) * 100: > 0 means the new run is slower
  stats::Verdict verdict = stats::Verdict::noisy;
  double gate_pct = 0;      // threshold used by the gate (0 when no gate)
  double gate_high = 0;     // optimistic end of the gate's (family-wise) interval
  bool regression = false;  // slower beyond the gate and beyond noise (never on contended data)
  bool broken = false;      // ok in OLD, failed / oom / diverged / crashed / skipped in NEW
  // Either run's measurement of it was contended (host_load.hpp): no regression is called on it.
  bool contended = false;
  std::string contention;  // why, e.g. "new: other processes used 1.9 cores ..."
  // The new run's matrix gates (params.gates): peak memory NEW/OLD beyond peak_memory_pct, and
  // the loss drift of NEW from OLD at their common steps beyond loss_drift. Judged whenever the
  // gate is on and the threshold is set, contended or not (neither depends on the machine's load).
  double old_peak_bytes = 0, new_peak_bytes = 0;
  std::optional<double> memory_gate_pct, loss_gate;
  double loss_drift = 0;           // measured when loss_gate is set
  bool memory_regression = false;  // peak memory above its threshold
  bool loss_regression = false;    // the loss drifted beyond its threshold
  bool gate_failed() const { return regression || memory_regression || loss_regression; }
  // Gated, but the gate has no interval (fewer than stats::kMinSegments segments in OLD or NEW):
  // a point estimate alone is no verdict either way, so the gate refuses rather than passes.
  bool unjudged = false;
  // `ab` measured it until its verdict was settled (apply_sequential_verdicts): the verdict, the
  // rounds it took and its repeated interval; speedup and the gate are then that interval's.
  std::optional<SequentialRecord> sequential;
  // Gated sequentially, and its interval neither excludes the gate's slowdown nor lies beyond
  // it after the budget: neither pass nor fail (exit 4).
  bool undecided = false;
};

struct RunComparison {
  std::string old_run_id, new_run_id;
  // OLD and NEW are the two sides of one A/B session (`trainbench ab`): their segments were
  // measured side by side, round by round, so each scenario's interval is paired and the
  // machine's drift cancels. Otherwise intervals are unpaired (Welch) and drift stays in them.
  bool paired = false;
  std::string ab_session;
  std::vector<ScenarioComparison> scenarios;          // in the new run's order
  std::vector<std::string> only_in_old, only_in_new;  // scenario ids
  std::vector<std::string> missing_in_new;            // ok in OLD, absent from NEW (subset of only_in_old)
  std::vector<std::string> environment_differences;   // non-empty only with allow_env_mismatch
  // Over the compared scenarios when they are of one workload; with several, absent, and one
  // geomean per workload in `workloads` (a geomean over different models mixes questions).
  std::optional<stats::RatioInterval> geomean_speedup;
  struct Workload {
    std::string workload;
    int compared = 0;
    stats::RatioInterval geomean_speedup;
  };
  std::vector<Workload> workloads;     // in the new run's order; empty for one workload
  int compared = 0;                    // scenarios with timings in both runs
  bool regression = false;             // some scenario slower beyond the gate and its noise, or past a
                                       // matrix gate on peak memory or loss
  bool broken = false;                 // some scenario broken or missing in NEW (not allowed)
  bool contended = false;              // some compared scenario was contended: the gate refuses to judge
  std::vector<std::string> unjudged;   // gated scenarios without an interval: the gate refuses too
  std::vector<std::string> undecided;  // sequential verdicts still open after the budget (exit 4)
  bool sequential = false;             // the verdicts are `ab`'s sequential ones
};

// The A/B session id when old_run and new_run are its "old" and "new" sides
// (provenance.ab_session = {id, side}), "" otherwise.
std::string ab_session_of(const RunResult& old_run, const RunResult& new_run);

// Matches scenarios by scenario_key(params). Throws EnvironmentMismatch when the hardware
// differs, unless options.allow_env_mismatch. broken is set only with a gate.
RunComparison compare_runs(const RunResult& old_run, const RunResult& new_run, const CompareOptions& options = {});

// `ab`'s sequential verdicts (keyed by scenario_key(...).dump()) replace the fixed-sample gate of
// the compared scenarios they cover: speedup = OLD/NEW of the repeated interval, regression when
// its whole interval is beyond the scenario's gate_pct, undecided when it straddles it, contended
// only when the session refused the scenario (too many contended rounds; dropped rounds alone
// are not), unjudged never. Memory and loss gates stand as compare_runs judged them.
void apply_sequential_verdicts(RunComparison& c, const std::map<std::string, SequentialRecord>& records,
                               double same_threshold = 0.02);

// The noise floor measured by an A/A comparison (the same build measured twice). Throws
// ImplausibleNoise, naming the scenarios, when some |change| exceeds kMaxPlausibleNoisePct or
// some scenario was contended (a loaded machine is not noise), or when nothing was compared.
NoiseFloor make_noise_floor(const RunComparison& aa);

void to_json(nlohmann::json& j, const RunComparison& c);

}  // namespace tb
