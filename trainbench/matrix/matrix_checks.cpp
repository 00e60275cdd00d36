#include <trainbench/matrix/matrix_checks.hpp>

#include <algorithm>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/option_spec.hpp>

namespace tb::matrix_detail {

namespace {

// 10,000 scenarios is weeks of measuring.
constexpr std::size_t kMaxScenarios = 10'000;

}  // namespace

bool has_cpp_loop(const json& j) {
  if (j.contains("axes") && j["axes"].is_object() && j["axes"].contains("loop") && j["axes"]["loop"].is_array())
    return std::any_of(j["axes"]["loop"].begin(), j["axes"]["loop"].end(), [](const json& v) { return v != "python"; });
  return !(j.contains("loop") && j["loop"] == "python");
}

void check_loops(const Reader& r, const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios) {
  const bool any_python = contains(spec.loop, LoopKind::python);
  if (any_python && spec.defaults.python.file.empty())
    r.fail("python.file", "is required for a Python loop (\"loop\": \"python\"): the file that builds it");
  if (!any_python && !spec.defaults.python.file.empty())
    r.fail("python", "names a Python loop's code, but every scenario runs the C++ loop (add \"loop\": \"python\")");
  if (!any_python && !spec.user_axes.empty())
    r.fail(
        "axes.user",
        "your own axes go to a Python loop's function (\"loop\": \"python\"); the C++ loop has nowhere to pass them");
  for (const ScenarioParams& p : scenarios) {
    if (p.loop == LoopKind::cpp && p.compile != CompileMode::eager)
      r.fail("axes.compile", "torch.compile applies to Python loops only: " + scenario_id(p) +
                                 " runs the C++ loop (exclude it: \"exclude\": [{\"loop\": \"cpp\", \"compile\": \"" +
                                 to_string(p.compile) + "\"}])");
    if (p.loop == LoopKind::python && p.world_size > 1)
      r.fail("axes.world_size", "a Python loop runs in one process: data-parallel Python loops (" + scenario_id(p) +
                                    ") are not supported");
  }
  if (any_python && spec.batch_search)
    r.fail("axes.batch", "\"max\" (a capacity search) probes trainbench's C++ loop; give a Python loop's batch sizes");
}

void apply_model_overrides(const MatrixSpec& spec, const std::string& model, json& model_options,
                           json& dataset_options) {
  const auto o = spec.model_overrides.find(model);
  if (o == spec.model_overrides.end()) return;
  if (o->contains("model_options")) model_options.merge_patch((*o)["model_options"]);
  if (o->contains("dataset_options")) dataset_options.merge_patch((*o)["dataset_options"]);
}

void check_component_options(const Reader& r, const MatrixSpec& spec, const MatrixParseOptions& options) {
  const ScenarioParams& d = spec.defaults;
  for (const auto& model : spec.models) {
    json model_options = d.model_options.is_object() ? d.model_options : json::object();
    json dataset_options = d.dataset_options.is_object() ? d.dataset_options : json::object();
    apply_model_overrides(spec, model, model_options, dataset_options);
    const auto m = options.model_specs.find(model);
    const ModelOptionSpecs* specs = m == options.model_specs.end() ? nullptr : &m->second;
    if (specs) validate_options(model_options, specs->options, {r.file(), "model_options", "model '" + model + "'"});
    const std::string dataset = !d.dataset.empty() ? d.dataset : specs ? specs->default_dataset : "";
    const auto ds = options.dataset_specs.find(dataset);
    if (ds == options.dataset_specs.end()) continue;
    const std::string owner =
        "dataset '" + dataset + "'" + (d.dataset.empty() ? " (the default dataset of model '" + model + "')" : "");
    validate_options(dataset_options, ds->second, {r.file(), "dataset_options", owner},
                     specs ? specs->default_dataset_options : json::object());
  }
}

void check_batches_fit_datasets(const Reader& r, const MatrixSpec& spec, const MatrixParseOptions& options,
                                const std::vector<ScenarioParams>& scenarios) {
  if (spec.batch_search) return;  // the search probes what fits
  for (const ScenarioParams& p : scenarios) {
    const auto m = options.model_specs.find(p.model);
    const ModelOptionSpecs* specs = m == options.model_specs.end() ? nullptr : &m->second;
    const std::string dataset = !p.dataset.empty() ? p.dataset : specs ? specs->default_dataset : "";
    const auto ds = options.dataset_specs.find(dataset);
    if (ds == options.dataset_specs.end()) continue;
    const json resolved = resolve_options(p.dataset_options.is_object() ? p.dataset_options : json::object(),
                                          ds->second, specs ? specs->default_dataset_options : json::object());
    const auto samples = resolved.find("samples");
    if (samples == resolved.end() || !samples->is_number_integer() || p.batch <= samples->get<long long>()) continue;
    const auto overrides = spec.model_overrides.find(p.model);
    const bool overridden = overrides != spec.model_overrides.end() && overrides->contains("dataset_options") &&
                            (*overrides)["dataset_options"].contains("samples");
    const bool written =
        overridden || (spec.defaults.dataset_options.is_object() && spec.defaults.dataset_options.contains("samples"));
    r.fail(
        overridden ? "model_overrides." + p.model + ".dataset_options.samples" : std::string("dataset_options.samples"),
        std::to_string(samples->get<long long>()) + " samples" +
            (written ? "" : " (the default for model '" + p.model + "' on dataset '" + dataset + "')") +
            " are fewer than the micro-batch " + std::to_string(p.batch) + " of " + scenario_id(p) +
            ": every step needs a whole batch; raise dataset_options.samples or lower axes.batch");
  }
}

std::vector<std::size_t> product_sizes(const MatrixSpec& spec) {
  std::vector<std::size_t> sizes;
  for (const ScenarioAxis& axis : scenario_axes())
    if (axis.product) sizes.push_back(std::max<std::size_t>(axis.product->size(spec), 1));
  return sizes;
}

void check_scenario_count(const Reader& r, const MatrixSpec& spec) {
  std::size_t count = 1;
  auto sizes = product_sizes(spec);
  for (const auto& [name, values] : spec.user_axes) sizes.push_back(values.size());
  for (const std::size_t n : sizes) {
    if (n > kMaxScenarios / count)
      r.fail("axes", "the axes multiply to more than " + std::to_string(kMaxScenarios) +
                         " scenarios (split the matrix into several files)");
    count *= n;
  }
}

}  // namespace tb::matrix_detail
