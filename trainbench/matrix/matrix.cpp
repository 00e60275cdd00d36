#include <trainbench/matrix/matrix.hpp>
#include <trainbench/support/join.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/isolation_settings.hpp>
#include <trainbench/matrix/matrix_checks.hpp>
#include <trainbench/matrix/matrix_reader.hpp>
#include <trainbench/matrix/matrix_sections.hpp>
#include <trainbench/matrix/matrix_selectors.hpp>
#include <trainbench/profiling/profile_options_check.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_input.hpp>

namespace tb {

using nlohmann::json;

const std::vector<std::string>& matrix_keys() {
  static const std::vector<std::string> keys = {
      "$schema", "name",           "description", "model",   "dataset",       "dataset_options",      "model_options",
      "device",  "optimizer",      "seed",        "steps",   "axes",          "hold_effective_batch", "exclude",
      "gates",   "configurations", "baseline",    "profile", "capacity",      "contention",           "test_delay_ms",
      "isolate", "hang_timeout_s", "test_crash",  "scaling", "data_parallel", "model_overrides",      "loop",
      "python"};
  return keys;
}

const std::vector<std::string>& matrix_axis_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const ScenarioAxis& axis : scenario_axes())
      if (axis.product) out.push_back(axis.name);
    return out;
  }();
  return names;
}

namespace {

using namespace matrix_detail;  // the parser's parts, one file each

const std::vector<std::string> kDeviceNames = {"cpu", "cuda", "auto"};

}  // namespace

json read_matrix_json(const std::string& path) { return read_json_file(path, "matrix file"); }
MatrixSpec parse_matrix(const json& j, const std::string& file, const MatrixParseOptions& options_in,
                        const std::vector<std::string>& set_overrides) {
  const Reader r(file);
  if (!j.is_object()) r.fail("", "a matrix file must be a JSON object, got " + std::string(j.type_name()));
  r.expect_keys(j, "", matrix_keys(), "top-level key");
  // A Python loop's model is whatever the user's function builds: no registry to check it against.
  MatrixParseOptions python_options;
  if (!has_cpp_loop(j)) {
    python_options = options_in;
    python_options.known_models.clear();
    python_options.model_specs.clear();
  }
  const MatrixParseOptions& options = has_cpp_loop(j) ? options_in : python_options;

  MatrixSpec spec;
  spec.file = file;
  ScenarioParams& d = spec.defaults;

  if (!j.contains("name")) r.fail("name", "is required (a short name for the matrix)");
  spec.name = r.string(j["name"], "name");
  if (spec.name.empty()) r.fail("name", "must not be empty");
  if (j.contains("description")) spec.description = r.string(j["description"], "description");

  if (j.contains("model")) {
    d.model = r.string(j["model"], "model");
    check_model_name(r, d.model, "model", options);
  }
  if (j.contains("dataset")) {
    d.dataset = r.string(j["dataset"], "dataset");
    if (!d.dataset.empty() && !options.known_datasets.empty() && !contains(options.known_datasets, d.dataset))
      r.fail("dataset",
             "unknown dataset '" + text_excerpt(d.dataset) + "' (known: " + join(options.known_datasets) + ")");
  }
  if (j.contains("dataset_options")) parse_dataset_options(r, j["dataset_options"], d);
  if (j.contains("model_options")) {
    r.expect_object(j["model_options"], "model_options");
    d.model_options = j["model_options"];
  }

  spec.device_request = j.contains("device") ? r.one_of(j["device"], "device", kDeviceNames, "device") : "auto";
  if (spec.device_request == "cuda" && !options.cuda_available)
    r.fail("device", "CUDA requested but no GPU is available (use \"auto\" or \"cpu\")");
  d.device = spec.device_request == "auto" ? (options.cuda_available ? DeviceKind::cuda : DeviceKind::cpu)
                                           : *parse_choice<DeviceKind>(spec.device_request);

  if (j.contains("optimizer")) parse_optimizer(r, j["optimizer"], d);
  if (j.contains("seed")) d.seed = static_cast<std::uint64_t>(r.integer(j["seed"], "seed", 0));  // <= 2^63-1
  if (j.contains("steps")) parse_steps(r, j["steps"], d.stopping);
  if (j.contains("profile")) {
    parse_profile(r, j["profile"], d.profile);
    profiling::validate_profile_options(d.profile, d.device, file);
  }
  if (j.contains("contention")) parse_contention(r, j["contention"], d.contention);
  if (j.contains("test_delay_ms"))
    d.test_delay_ms = r.number(j["test_delay_ms"], "test_delay_ms", 0.0, false, kMaxTestDelayMs);
  parse_isolation_settings(j, file);  // "isolate", "test_crash": checked here, kept out of the spec
  if (j.contains("hold_effective_batch"))
    spec.hold_effective_batch = r.boolean(j["hold_effective_batch"], "hold_effective_batch");
  if (j.contains("scaling")) d.scaling = r.choice<ScalingMode>(j["scaling"], "scaling", "scaling");
  if (j.contains("data_parallel")) parse_data_parallel(r, j["data_parallel"], d.data_parallel);
  if (j.contains("loop")) d.loop = r.choice<LoopKind>(j["loop"], "loop", "loop");
  if (j.contains("python")) parse_python(r, j["python"], d.python);

  if (j.contains("axes")) parse_axes(r, j["axes"], spec, options);
  // An axis the matrix does not list has one value: the defaults' (the top-level model, fp32...).
  for (const ScenarioAxis& axis : scenario_axes())
    if (axis.product && axis.product->size(spec) == 0) axis.product->store(spec, {axis.value(d)});
  if (spec.batch_search) spec.batch.clear();  // the search decides it
  d.model = spec.models.front();
  if (j.contains("model_overrides")) parse_model_overrides(r, j["model_overrides"], spec);
  check_scenario_count(r, spec);
  check_component_options(r, spec, options);

  if (j.contains("capacity")) {
    spec.capacity = j["capacity"];
    validate_options(spec.capacity, capacity_option_set(), {file, "capacity", "the capacity section"});
    if (spec.capacity.contains("batch") && spec.capacity["batch"] == "max") {
      if (j.contains("axes") && j["axes"].contains("batch") && !spec.batch_search)
        r.fail("capacity.batch", "\"max\" conflicts with the explicit axes.batch list");
      spec.batch_search = true;
      spec.batch.clear();
    }
  }

  // The batch search probes on one process; data-parallel scenarios name their batch.
  if (spec.batch_search && std::any_of(spec.world_size.begin(), spec.world_size.end(), [](int n) { return n > 1; }))
    r.fail("axes.world_size",
           "batch \"max\" (a capacity search) runs on one process: give the batch of "
           "data-parallel scenarios");

  if (j.contains("exclude")) {
    const json& ex = j["exclude"];
    if (!ex.is_array()) r.fail("exclude", "must be a list of objects, got " + excerpt(ex));
    for (std::size_t i = 0; i < ex.size(); ++i) {
      const std::string field = "exclude[" + std::to_string(i) + "]";
      if (ex[i].is_object() && ex[i].empty()) r.fail(field, "must name at least one axis");
      spec.exclude.push_back(parse_axis_selector(r, ex[i], field, options, true));
    }
  }
  if (j.contains("baseline")) spec.baseline = parse_axis_selector(r, j["baseline"], "baseline", options, false);
  if (j.contains("gates")) parse_gates(r, j["gates"], spec, options);
  if (j.contains("configurations")) parse_configurations(r, j["configurations"], spec, options);

  // Expanding validates the combinations themselves (divisibility, nothing left after exclude).
  const auto scenarios = expand(spec);
  if (scenarios.empty()) r.fail("exclude", "excludes every scenario of the matrix");
  check_loops(r, spec, scenarios);
  check_batches_fit_datasets(r, spec, options, scenarios);
  check_gates_match(r, spec, scenarios, set_overrides);
  settle_baseline(r, spec, set_overrides);
  return spec;
}

MatrixSpec load_matrix(const std::string& path, const MatrixParseOptions& options,
                       const std::vector<std::string>& set_overrides) {
  return parse_matrix(apply_set_overrides(read_matrix_json(path), set_overrides), path, options, set_overrides);
}

}  // namespace tb
