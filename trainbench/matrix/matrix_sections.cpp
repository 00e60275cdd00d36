#include <trainbench/matrix/matrix_sections.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <string_view>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/matrix_selectors.hpp>

namespace tb::matrix_detail {

namespace {

const std::vector<std::string> kStepKeys = {"warmup", "min",        "max",        "target_rel_ci", "time_budget_s",
                                            "rounds", "max_rounds", "interleave", "segment_warmup"};
const std::vector<std::string> kProfileKeys = {"enabled", "window", "host_trace", "cupti", "kineto", "nvtx", "gzip"};
const std::vector<std::string> kContentionKeys = {"other_cpu_cores", "steal_fraction"};
const std::vector<std::string> kOptimizerKeys = {"name", "lr", "momentum", "weight_decay"};
const std::vector<std::string> kDataParallelKeys = {"bucket_mb"};
constexpr double kMaxBucketMb = 1024 * 1024;  // a terabyte: one bucket for any model

}  // namespace

void check_model_name(const Reader& r, const std::string& name, const std::string& field,
                      const MatrixParseOptions& options) {
  if (!options.known_models.empty() && !contains(options.known_models, name))
    r.fail(field, "unknown model '" + text_excerpt(name) + "' (known: " + join(options.known_models) + ")");
}
void parse_optimizer(const Reader& r, const json& j, ScenarioParams& p) {
  if (j.is_string()) {
    p.optimizer = r.choice<OptimizerKind>(j, "optimizer", "optimizer");
  } else {
    r.expect_keys(j, "optimizer", kOptimizerKeys, "optimizer key");
    if (!j.contains("name")) r.fail("optimizer.name", "is required (adam, adamw or sgd)");
    p.optimizer = r.choice<OptimizerKind>(j["name"], "optimizer.name", "optimizer");
    if (j.contains("lr")) p.learning_rate = r.number(j["lr"], "optimizer.lr", 0.0, true);  // finite: JSON has no inf
    if (j.contains("momentum")) {
      if (p.optimizer != OptimizerKind::sgd) r.fail("optimizer.momentum", "only applies to sgd");
      p.momentum = r.number(j["momentum"], "optimizer.momentum", 0.0, false, 1.0);
    }
  }
  // SGD needs a larger step than Adam's 1e-3 default to make progress in a short run.
  if (p.optimizer == OptimizerKind::sgd && !(j.is_object() && j.contains("lr"))) p.learning_rate = 0.01;
  // AdamW's default decay is PyTorch's (0.01); the others have none unless asked.
  p.weight_decay = p.optimizer == OptimizerKind::adamw ? 0.01 : 0.0;
  if (j.is_object() && j.contains("weight_decay"))
    p.weight_decay = r.number(j["weight_decay"], "optimizer.weight_decay", 0.0, false, 1.0);
}

void parse_data_parallel(const Reader& r, const json& j, DataParallelOptions& d) {
  r.expect_keys(j, "data_parallel", kDataParallelKeys, "data_parallel key");
  if (j.contains("bucket_mb"))
    d.bucket_mb = r.number(j["bucket_mb"], "data_parallel.bucket_mb", 0.0, true, kMaxBucketMb);
}

void parse_steps(const Reader& r, const json& j, StoppingRule& s) {
  r.expect_keys(j, "steps", kStepKeys, "steps key");
  if (j.contains("warmup")) s.warmup_steps = r.small_int(j["warmup"], "steps.warmup", 0, kMaxWarmupSteps);
  if (j.contains("min")) s.min_steps = r.small_int(j["min"], "steps.min", 1, kMaxSteps);
  if (j.contains("max")) s.max_steps = r.small_int(j["max"], "steps.max", 1, kMaxSteps);
  if (j.contains("target_rel_ci"))
    s.target_rel_ci = r.number(j["target_rel_ci"], "steps.target_rel_ci", 0.0, false, 1.0);
  if (j.contains("time_budget_s"))
    s.time_budget_s = r.number(j["time_budget_s"], "steps.time_budget_s", 0.0, true, kMaxTimeBudgetS);
  if (s.min_steps > s.max_steps)
    r.fail("steps.min",
           "must be <= steps.max, got min " + std::to_string(s.min_steps) + " > max " + std::to_string(s.max_steps));
  if (j.contains("rounds")) {
    s.rounds = r.small_int(j["rounds"], "steps.rounds", 1, kMaxRounds);
    if (s.rounds > s.max_steps)
      r.fail("steps.rounds", "must be <= steps.max (every round measures at least one step), got " +
                                 std::to_string(s.rounds) + " > " + std::to_string(s.max_steps));
    s.max_rounds = s.rounds;  // no extra rounds unless steps.max_rounds asks for them
  } else if (s.rounds > s.max_steps) {
    // The default number of rounds never asks for more steps than steps.max allows.
    s.rounds = s.max_steps;
    s.max_rounds = std::min(s.max_rounds, s.max_steps);
  }
  if (j.contains("max_rounds")) { s.max_rounds = r.small_int(j["max_rounds"], "steps.max_rounds", 1, kMaxRounds); }
  if (s.max_rounds < s.rounds)
    r.fail("steps.max_rounds",
           "must be >= steps.rounds, got " + std::to_string(s.max_rounds) + " < " + std::to_string(s.rounds));
  if (j.contains("interleave")) s.interleave = r.boolean(j["interleave"], "steps.interleave");
  if (j.contains("segment_warmup"))
    s.segment_warmup = r.small_int(j["segment_warmup"], "steps.segment_warmup", 0, kMaxWarmupSteps);
}

void parse_profile(const Reader& r, const json& j, ProfileOptions& p) {
  r.expect_keys(j, "profile", kProfileKeys, "profile key");
  if (j.contains("enabled")) p.enabled = r.boolean(j["enabled"], "profile.enabled");
  if (j.contains("window")) p.window = r.small_int(j["window"], "profile.window", 1, kMaxProfileWindow);
  if (j.contains("host_trace")) p.host_trace = r.boolean(j["host_trace"], "profile.host_trace");
  if (j.contains("cupti")) p.cupti = r.boolean(j["cupti"], "profile.cupti");
  if (j.contains("kineto")) p.kineto = r.boolean(j["kineto"], "profile.kineto");
  if (j.contains("nvtx")) p.nvtx = r.boolean(j["nvtx"], "profile.nvtx");
  if (j.contains("gzip")) p.gzip = r.boolean(j["gzip"], "profile.gzip");
}

// Thresholds above which a scenario's measurements count as contended (host_load.hpp). A shared
// CI runner with a known steady background load can raise them; a value too high hides real load.
void parse_contention(const Reader& r, const json& j, ContentionThresholds& t) {
  r.expect_keys(j, "contention", kContentionKeys, "contention key");
  if (j.contains("other_cpu_cores"))
    t.other_cpu_cores = r.number(j["other_cpu_cores"], "contention.other_cpu_cores", 0.0, true, kMaxOtherCpuCores);
  if (j.contains("steal_fraction")) {
    t.steal_fraction = r.number(j["steal_fraction"], "contention.steal_fraction", 0.0, true);
    if (t.steal_fraction > 1.0)
      r.fail("contention.steal_fraction",
             "is a fraction of CPU time, must be <= 1, got " + excerpt(j["steal_fraction"]));
  }
}
// The user's own axes: {"name": [values...]}, names that are identifiers and not built-in axes,
// values that are booleans, numbers or short strings (they end up in ids).
namespace {

constexpr std::size_t kMaxUserAxes = 16;

}  // namespace

void parse_user_axes(const Reader& r, const json& user, MatrixSpec& spec) {
  r.expect_object(user, "axes.user");
  if (user.size() > kMaxUserAxes) r.fail("axes.user", "at most " + std::to_string(kMaxUserAxes) + " axes of your own");
  for (const auto& [name, values] : user.items()) {
    const std::string field = "axes.user." + text_excerpt(name, 40);
    const bool identifier = !name.empty() && name.size() <= 40 && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                            std::all_of(name.begin(), name.end(),
                                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!identifier) r.fail(field, "an axis name is letters, digits and _ (at most 40), not starting with a digit");
    if (find_axis(name) != nullptr)
      r.fail(field, "'" + name + "' is a built-in axis: write it as axes." + name + ", not under axes.user");
    const auto list = r.axis<json>(values, field, [&](const json& v, const std::string& f) {
      if (v.is_boolean() || v.is_number_integer()) return v;
      if (v.is_number_float() && std::isfinite(v.get<double>())) return v;
      if (v.is_string() && !v.get<std::string>().empty() && v.get<std::string>().size() <= 40 &&
          v.get<std::string>().find('/') == std::string::npos)
        return v;
      r.fail(f, "must be true/false, a number or a short text without '/' (it becomes part of scenario ids), got " +
                    excerpt(v));
    });
    spec.user_axes.emplace_back(name, list);
  }
}

void parse_axes(const Reader& r, const json& axes, MatrixSpec& spec, const MatrixParseOptions& options) {
  std::vector<std::string> allowed = matrix_axis_names();
  allowed.push_back("user");
  r.expect_keys(axes, "axes", allowed, "axis");
  if (axes.contains("user")) parse_user_axes(r, axes["user"], spec);
  for (const ScenarioAxis& axis : scenario_axes()) {
    if (!axis.product || !axes.contains(axis.name)) continue;
    const json& values = axes[axis.name];
    const std::string field = std::string("axes.") + axis.name;
    // The one value that is not a list item: the batch found by a capacity search.
    if (std::string_view(axis.name) == "batch" && values.is_string()) {
      if (values.get<std::string>() != "max")
        r.fail(field, "must be a positive integer, a list of them, or \"max\", got " + excerpt(values));
      spec.batch_search = true;
      continue;
    }
    axis.product->store(spec, r.axis<json>(values, field, [&](const json& v, const std::string& f) {
      return parse_axis_value(r, axis, v, f, options);
    }));
  }
}

void parse_dataset_options(const Reader& r, const json& j, ScenarioParams& p) {
  r.expect_object(j, "dataset_options");
  p.dataset_options = j;
  if (!j.contains("path")) return;
  const std::string path = r.string(j["path"], "dataset_options.path");
  // Datasets that can generate their files (images) do so unless create is false.
  const bool create = !j.contains("create") || r.boolean(j["create"], "dataset_options.create");
  // The error_code form: a name too long or unreadable is "does not exist", not a library throw.
  std::error_code ec;
  if (!create && !std::filesystem::exists(path, ec))
    r.fail("dataset_options.path", "'" + text_excerpt(path) + "' does not exist and dataset_options.create is false");
}

// "python": {"file": "my_loop.py", "function": "build"}: the file relative to the matrix's folder.
void parse_python(const Reader& r, const json& j, PythonLoopSpec& py) {
  r.expect_object(j, "python");
  r.expect_keys(j, "python", {"file", "function", "timeout_s"}, "python key");
  if (j.contains("timeout_s")) py.timeout_s = r.number(j["timeout_s"], "python.timeout_s", 0.0, true, kMaxTimeBudgetS);
  if (!j.contains("file")) r.fail("python.file", "is required: the Python file that builds your training loop");
  const std::string file = r.string(j["file"], "python.file");
  namespace fs = std::filesystem;
  fs::path path(file);
  if (path.is_relative()) path = fs::path(r.file()).parent_path() / path;
  std::error_code ec;
  if (file.empty() || !fs::is_regular_file(path, ec))
    r.fail("python.file", "'" + text_excerpt(file) + "' is not a file (looked for at " +
                              text_excerpt(path.string(), 400) + "; a relative path is relative to the matrix)");
  py.file = fs::absolute(path, ec).lexically_normal().string();
  if (j.contains("function")) {
    py.function = r.string(j["function"], "python.function");
    const bool identifier = !py.function.empty() && !std::isdigit(static_cast<unsigned char>(py.function[0])) &&
                            std::all_of(py.function.begin(), py.function.end(),
                                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!identifier)
      r.fail("python.function", "must be the name of a function in " + file + ", got " + excerpt(j["function"]));
  }
}
// {model: {"model_options", "dataset_options"}} for models of this matrix, objects each.
void parse_model_overrides(const Reader& r, const json& j, MatrixSpec& spec) {
  r.expect_object(j, "model_overrides");
  for (const auto& [model, o] : j.items()) {
    const std::string field = "model_overrides." + model;
    if (!contains(spec.models, model))
      r.fail(field, "'" + text_excerpt(model) + "' is not a model of this matrix (models: " + join(spec.models) + ")");
    r.expect_object(o, field);
    r.expect_keys(o, field, {"model_options", "dataset_options"}, "key");
    for (const auto& [key, v] : o.items()) r.expect_object(v, field + "." + key);
  }
  spec.model_overrides = j;
}

}  // namespace tb::matrix_detail
