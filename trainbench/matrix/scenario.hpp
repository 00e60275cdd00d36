// One point of a scenario matrix: everything that defines a training-loop measurement.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/gate_thresholds.hpp>
#include <trainbench/matrix/precision_table.hpp>
#include <trainbench/matrix/scenario_choices.hpp>
#include <trainbench/measure/host_load.hpp>

namespace tb {

// How a scenario is measured. It runs warmup_steps unmeasured steps once, then `rounds`
// segments, one per round of a schedule that interleaves the matrix's scenarios in a new
// shuffled order every round (interleave = false: each scenario's rounds back to back). Each
// segment re-warms with segment_warmup unmeasured steps (after a switch from another scenario)
// and measures between ceil(min_steps / rounds) and ceil(max_steps / rounds) steps, stopping at
// time_budget_s / rounds seconds of measured time once the minimum is reached. A scenario whose
// drift-aware 95% interval (segment_stats.hpp) is still wider than +-target_rel_ci after `rounds`
// rounds gets more rounds, up to max_rounds.
inline constexpr int kMaxRounds = 1000;
struct StoppingRule {
  int warmup_steps = 3;
  int min_steps = 10;
  int max_steps = 100;
  double target_rel_ci = 0.02;
  double time_budget_s = 10.0;
  int rounds = 6;
  int max_rounds = 6;
  bool interleave = true;
  int segment_warmup = 1;
};

struct ProfileOptions {
  bool enabled = false;    // run a profiling pass after the timed pass
  int window = 5;          // optimizer steps in the profiling window
  bool host_trace = true;  // trainbench's own Chrome trace of CPU phases (+ CUPTI records)
  bool cupti = false;      // CUPTI activity collection (GPU only)
  bool kineto = false;     // LibTorch's Kineto op-level trace
  bool nvtx = true;        // NVTX ranges around scenario / step / phase
  bool gzip = false;       // write traces as .json.gz
};

// Data-parallel training (world_size > 1): c10d's Reducer all-reduces gradients in buckets of
// bucket_mb, overlapped with backward, on Gloo (CPU) or NCCL (CUDA).
inline constexpr int kMaxWorldSize = 65536;
struct DataParallelOptions {
  double bucket_mb = 25.0;  // DDP's default bucket_cap_mb
};

// Where a Python loop's code is (docs/python-loop.md): the user's file and the function that
// builds a scenario from its settings, run by `python -m trainbench.worker`.
struct PythonLoopSpec {
  std::string file;                // absolute (the matrix names it relative to itself)
  std::string function = "build";  // called with the scenario's settings
  double timeout_s = 600;          // a worker silent this long (hung) is killed: "crashed"
};

struct ScenarioParams {
  std::string model = "mlp";
  std::string dataset;                  // empty: the model's default dataset
  DeviceKind device = DeviceKind::cpu;  // resolved; never "auto" here
  OptimizerKind optimizer = OptimizerKind::adam;
  double learning_rate = 1e-3;
  double momentum = 0.0;      // sgd only
  double weight_decay = 0.0;  // L2 for adam and sgd, decoupled for adamw (default 0.01 there)
  Precision precision = Precision::fp32;
  int workers = 0;           // data-loader worker threads, 0 = main thread
  int accumulation = 1;      // micro-batches per optimizer step
  int batch = 32;            // micro-batch size
  int effective_batch = 32;  // batch * accumulation, per rank
  // Data-parallel ranks, one device each; 1: one process, no reducer. With scaling "weak" the
  // batch is per rank (the global batch grows with the ranks); "strong": the matrix's batch is
  // the global one and expand() splits it over the ranks. `batch` here is always per rank.
  int world_size = 1;
  ScalingMode scaling = ScalingMode::weak;
  // "auto": gradients go through c10d's Reducer when world_size > 1; "always": also alone, so
  // world_size 1 with the reducer shows DDP's own overhead (expand() drops "always" above 1).
  ReducerMode reducer = ReducerMode::automatic;
  DataParallelOptions data_parallel;
  // The optimisations engineers try after the article's four, each a product axis (README
  // "Optimisation axes"). The CUDA-only ones are skipped with a reason on the CPU.
  MemoryFormatKind memory_format = MemoryFormatKind::contiguous;  // channels_last: 4-d parameters and inputs NHWC
  bool pin_memory = false;                                 // pinned host batches, non_blocking copies on a side stream
  OptimizerImpl optimizer_impl = OptimizerImpl::for_loop;  // foreach, fused: how the optimizer's update runs
  bool cudnn_benchmark = false;                            // cuDNN picks convolution algorithms by timing them
  bool cuda_graphs = false;                                // the whole step captured once, then replayed
  // Whose loop runs the scenario: trainbench's C++ one, or the user's Python code in a worker
  // process (docs/python-loop.md), compiled by torch.compile in `compile` mode (Python only).
  LoopKind loop = LoopKind::cpp;
  CompileMode compile = CompileMode::eager;
  PythonLoopSpec python;  // a Python loop's file and function
  // The user's own axes and this scenario's values ({"fused_loss": true}): passed to a Python
  // loop's function, shown in the id, part of the key; an empty object when there are none.
  nlohmann::json user_axes = nlohmann::json::object();
  std::uint64_t seed = 42;
  nlohmann::json dataset_options = nlohmann::json::object();  // e.g. {"samples": 2048, "path": "..."}
  nlohmann::json model_options = nlohmann::json::object();    // e.g. {"hidden": 256}
  StoppingRule stopping;
  ProfileOptions profile;
  // When a scenario counts as contended (the matrix's "contention" section); not part of what
  // is measured, so not in the digest either.
  ContentionThresholds contention;
  // The matrix's named configuration this scenario belongs to ("configurations": "plain",
  // "tuned"); "" when the matrix names none. Part of the id ("/tuned" at the end) and the key.
  std::string configuration;
  // The CI thresholds the matrix's "gates" resolved for this scenario (gate_thresholds.hpp); not
  // part of what it measures (the key, the digest).
  GateThresholds gates;
  // Test-only planted slowdown: a slow input pipeline that hands every micro-batch over this much
  // later (BatchStream), charged to data_wait whatever the worker count.
  double test_delay_ms = 0.0;
};

// Whether the scenario's gradients go through c10d's Reducer: several ranks, or reducer "always"
// (one rank through the reducer, to show its own cost). Such a scenario needs a process group and
// has data-parallel options.
inline bool is_data_parallel(const ScenarioParams& p) { return p.world_size > 1 || p.reducer == ReducerMode::always; }

// dataset_options.placement, accepted by every dataset: "device" keeps a few batches on the
// device for the whole measurement (compute only, as published throughput benchmarks measure:
// nothing is loaded or copied per step; trainer.hpp), "host" (or absent) loads and copies each.
inline constexpr const char* kPlacementOption = "placement";
inline bool device_resident_data(const ScenarioParams& p) {
  return p.dataset_options.is_object() && p.dataset_options.value(kPlacementOption, std::string()) == "device";
}

// Samples of one optimizer step over every rank: effective_batch * world_size.
inline long long global_batch(const ScenarioParams& p) {
  return static_cast<long long>(p.effective_batch) * p.world_size;
}

// Stable identifier built from the axis values, e.g. "mlp/fp32/w0/a1/b64".
std::string scenario_id(const ScenarioParams& p);

// The parameters that identify a scenario across runs (model, dataset, device, optimizer,
// precision, workers, accumulation, batch) as JSON; used for matching in comparisons.
nlohmann::json scenario_key(const ScenarioParams& p);

// Digest (16 hex digits, FNV-1a 64) of what a list of scenarios measures: keys, options, seed,
// learning rate and stopping rule. Profiling options and the test-only delay are left out: they
// do not change what is measured (the delay stands in for a code change in gate tests).
std::string scenarios_digest(const std::vector<ScenarioParams>& scenarios);

void to_json(nlohmann::json& j, const StoppingRule& s);
void from_json(const nlohmann::json& j, StoppingRule& s);
void to_json(nlohmann::json& j, const ProfileOptions& p);
void from_json(const nlohmann::json& j, ProfileOptions& p);
void to_json(nlohmann::json& j, const DataParallelOptions& d);
void from_json(const nlohmann::json& j, DataParallelOptions& d);
void to_json(nlohmann::json& j, const ScenarioParams& p);
void from_json(const nlohmann::json& j, ScenarioParams& p);

}  // namespace tb
