// Scenario-matrix files: parsing, validation, command-line overrides and expansion into scenarios.
// The file format is documented in scenarios/README.md and schema/matrix.schema.json.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/option_spec.hpp>
#include <trainbench/matrix/scenario.hpp>

namespace tb {

// Upper bounds of the numeric matrix settings (schema/matrix.schema.json has the same): far above
// any real benchmark, low enough that no single value exhausts memory or time on its own.
inline constexpr int kMaxSteps = 1'000'000;                 // steps.min, steps.max: every step time is kept
inline constexpr int kMaxWarmupSteps = 100'000;             // steps.warmup, steps.segment_warmup
inline constexpr double kMaxTimeBudgetS = 7 * 24 * 3600.0;  // steps.time_budget_s: a week
inline constexpr double kMaxTestDelayMs = 60'000;           // test_delay_ms: a minute per micro-batch
inline constexpr int kMaxWorkers = 1024;                    // axes.workers: loader threads
inline constexpr int kMaxAccumulation = 1024;               // axes.accumulation
inline constexpr int kMaxBatch = 1 << 20;                   // axes.batch: times accumulation fits an int
inline constexpr int kMaxProfileWindow = 10'000;            // profile.window
inline constexpr double kMaxOtherCpuCores = 4096;           // contention.other_cpu_cores

// A parsed, validated matrix. Axis vectors are never empty, except `batch` when batch_search.
struct MatrixSpec {
  std::string name;
  std::string description;
  std::string file;            // path the matrix was read from (for messages and results.json)
  std::string device_request;  // as written: "cpu", "cuda" or "auto"
  ScenarioParams defaults;     // every non-axis field (dataset, device resolved, optimizer, steps...)
  std::vector<std::string> models;
  std::vector<Precision> precisions;
  std::vector<int> workers;
  std::vector<int> accumulation;
  // Micro-batch sizes, or EFFECTIVE batch sizes when hold_effective_batch (then the micro-batch of a
  // scenario is batch / accumulation).
  std::vector<int> batch;
  bool hold_effective_batch = false;
  std::vector<int> world_size;  // data-parallel ranks per scenario
  std::vector<ReducerMode> reducer;
  std::vector<MemoryFormatKind> memory_format;
  std::vector<bool> pin_memory;
  std::vector<OptimizerImpl> optimizer_impl;
  std::vector<bool> cudnn_benchmark;
  std::vector<bool> cuda_graphs;
  std::vector<LoopKind> loop;
  std::vector<CompileMode> compile;
  // The user's own axes ("axes": {"user": {"my_flag": [false, true]}}), by name: multiplied after
  // the built-in ones, passed to a Python loop's function, shown at the end of ids.
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> user_axes;

  // {model: {"model_options": {...}, "dataset_options": {...}}}: merged over the matrix's options
  // for that model's scenarios (models whose datasets take different options in one matrix).
  nlohmann::json model_overrides = nlohmann::json::object();
  std::vector<nlohmann::json> exclude;  // each: {axis: value or [values]}; drops combos matching all keys
  nlohmann::json baseline = nlohmann::json::object();  // {axis: value}, as written (may be empty)
  std::vector<GateRule> gates;  // "gates", in order; expand() resolves them into each scenario's params
  // "configurations": named bundles of settings measured side by side ("plain", "tuned"). Every
  // combination of the axes is expanded once per configuration name, in order of first
  // appearance; each rule of that name whose `match` (a selector, {} = all) and `device` ("" =
  // any) fit the combination sets its axis values (`set`: {axis: value}), later rules over
  // earlier ones. Combinations a configuration makes equal are measured once.
  struct ConfigurationRule {
    std::string name;
    nlohmann::json match = nlohmann::json::object();
    std::string device;  // "cpu" or "cuda": the rule applies on that device only
    nlohmann::json set = nlohmann::json::object();
  };
  std::vector<ConfigurationRule> configurations;
  std::vector<std::string> configuration_names;  // in order of first appearance
  // What the baseline and configuration rules did, one line each, for `run` and `list` to print
  // (a configuration rule for another device is left out, and says so); a baseline key whose axis
  // a --set override changed so that it no longer has the value drops out of the baseline.
  std::vector<std::string> baseline_notes;
  nlohmann::json capacity;  // pass-through for the capacity component (null when absent)
  // axes.batch == "max" (or capacity.batch == "max"): the batch is found by a capacity search;
  // `batch` is empty and expand() uses defaults.batch as a placeholder.
  bool batch_search = false;
};

// The declared options of a model, and the dataset it uses unless the matrix names one.
struct ModelOptionSpecs {
  OptionSet options;            // what model_options may hold
  std::string default_dataset;  // "" : unknown (dataset_options then checked only with `dataset`)
  nlohmann::json default_dataset_options = nlohmann::json::object();  // merged under dataset_options
};

// What the caller knows about the environment. Empty catalogs skip name validation (so the
// orchestrator fills them from the real model/dataset registry); a model or dataset without an
// entry in model_specs / dataset_specs has its options passed through unchecked.
struct MatrixParseOptions {
  std::vector<std::string> known_models;
  std::vector<std::string> known_datasets;
  std::map<std::string, ModelOptionSpecs> model_specs;  // by model name
  std::map<std::string, OptionSet> dataset_specs;       // by dataset name
  bool cuda_available = false;  // "auto" resolves to cuda when true; "cuda" is an error when false
};

// The keys of the "capacity" section, as the capacity search and the utilization pass read them.
const OptionSet& capacity_option_set();

// Top-level keys a matrix file may have, and the axis names.
const std::vector<std::string>& matrix_keys();
const std::vector<std::string>& matrix_axis_names();

// Reads a matrix file as raw JSON (InputError naming the file, with line/column, when malformed).
nlohmann::json read_matrix_json(const std::string& path);

// Validates and converts raw matrix JSON. Every problem is an InputError naming
// `file_for_errors` and the field, e.g. "x.json: axes.workers[1]: must be >= 0, got -2".
// `set_overrides` are the --set overrides already applied to `j`: a baseline key whose axis
// they changed, so that it no longer has the key's value, drops out of the baseline (a line in
// baseline_notes says so); any other baseline that matches no scenario is refused
// ("baseline.batch: 32 matches no scenario: axes.batch has 8, 64").
MatrixSpec parse_matrix(const nlohmann::json& j, const std::string& file_for_errors, const MatrixParseOptions& options,
                        const std::vector<std::string>& set_overrides = {});

// read_matrix_json + apply_set_overrides + parse_matrix.
MatrixSpec load_matrix(const std::string& path, const MatrixParseOptions& options,
                       const std::vector<std::string>& set_overrides = {});

// Applies command-line overrides "dotted.path=JSON" (e.g. "steps.max=20", "axes.workers=[0,2]",
// "device=cpu") to raw matrix JSON. A value that is not valid JSON is taken as a string. Missing
// intermediate objects are created. InputError (file "--set") on a malformed override.
nlohmann::json apply_set_overrides(nlohmann::json j, const std::vector<std::string>& overrides);

// The cartesian product of the axes in a stable order: model, then precision, workers,
// accumulation, batch (the last varies fastest), minus excluded combos. Device is resolved,
// batch is the micro-batch and effective_batch = batch * accumulation.
std::vector<ScenarioParams> expand(const MatrixSpec& spec);

// The value a scenario has on an axis, as written in the matrix (batch is the effective batch
// when hold_effective_batch). Used to match exclude and baseline entries.
nlohmann::json axis_value(const MatrixSpec& spec, const ScenarioParams& p, const std::string& axis);

// The baseline: the defaults (fp32, 0 workers, 1 accumulation, first batch, first model; an
// axis without its default value takes its first value) overridden by spec.baseline. When that
// combination is excluded, the first scenario matching spec.baseline; when nothing matches (no
// baseline written), the first scenario, and `matched` is false.
struct BaselineChoice {
  std::size_t index = 0;
  bool matched = false;
  nlohmann::json wanted;  // the full baseline key that was looked for
};
BaselineChoice choose_baseline(const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios);

}  // namespace tb
