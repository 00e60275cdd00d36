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

#include <trainbench/capacity/projection.hpp>
#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/cartesian_product.hpp>
#include <trainbench/matrix/isolation_settings.hpp>
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

const OptionSet& capacity_option_set() {
  static constexpr double kIntMax = std::numeric_limits<int>::max();  // static: clang needs no capture
  static const OptionSet set = [] {
    OptionSet s;
    s.options = {
        {"batch",
         OptionType::string_enum,
         {},
         {},
         {"max"},
         nullptr,
         "\"max\": find the batch by the capacity search (same as axes.batch = \"max\")"},
        {"memory_budget",
         OptionType::byte_size,
         {},
         {},
         {},
         nullptr,
         "memory limit of a batch-search probe (required on the CPU unless --memory-budget)"},
        {"start", OptionType::integer, 1, kIntMax, {}, 8, "first batch the search probes"},
        {"max_batch", OptionType::integer, 1, kIntMax, {}, 4096, "largest batch the search probes"},
        {"multiple_of", OptionType::integer, 1, kIntMax, {}, 8, "every probed batch is a multiple of this"},
        {"measure_peak",
         OptionType::boolean,
         {},
         {},
         {},
         true,
         "measure the matmul peak for utilization (false: the GPU table's peak, if any)"},
        {"target",
         OptionType::custom,
         {},
         {},
         {},
         nullptr,
         "time-to-train target: \"1e9 samples\", \"2e12 tokens\", \"3 epochs\" (a number: samples)",
         [](const json& v) -> std::string {
           if (!v.is_string() && !v.is_number())
             return "must be a training target like \"1e9 samples\", got " + excerpt(v);
           try {
             capacity::parse_target(v.is_string() ? v.get<std::string>() : v.dump(), "target");
           } catch (const InputError& e) {
             // what() is "<file>: <field>: <message>"; keep the message.
             return std::string(e.what()).substr(e.file().size() + e.field().size() + 4);
           }
           return "";
         }},
        {"devices",
         OptionType::integer,
         1,
         kIntMax,
         {},
         1,
         "devices one run occupies (scales device-hours, cost, energy)"},
        {"price_per_device_hour",
         OptionType::number,
         0,
         {},
         {},
         nullptr,
         "price of one device-hour, for the cost projection"},
        {"avg_power_watts",
         OptionType::number,
         0,
         {},
         {},
         nullptr,
         "average power per device, for the energy projection"},
        {"price_per_kwh",
         OptionType::number,
         0,
         {},
         {},
         nullptr,
         "electricity price per kWh, for the energy cost projection"},
    };
    // The search probes multiples of multiple_of from start (rounded up) to max_batch.
    s.rules = {{"start", [](const json&, const json& o) -> std::string {
                  const auto start = o["start"].get<long long>(), max = o["max_batch"].get<long long>();
                  const auto step = o["multiple_of"].get<long long>();
                  if ((start + step - 1) / step * step <= max) return "";
                  return detail::concat("no batch to probe: ", start,
                                        " rounded up to a multiple of capacity.multiple_of (", step,
                                        ") exceeds capacity.max_batch (", max, ")");
                }}};
    return s;
  }();
  return set;
}

namespace {

const std::vector<std::string> kStepKeys = {"warmup", "min",        "max",        "target_rel_ci", "time_budget_s",
                                            "rounds", "max_rounds", "interleave", "segment_warmup"};
const std::vector<std::string> kProfileKeys = {"enabled", "window", "host_trace", "cupti", "kineto", "nvtx", "gzip"};
const std::vector<std::string> kContentionKeys = {"other_cpu_cores", "steal_fraction"};
const std::vector<std::string> kGateKeys = {"match", "step_time_pct", "peak_memory_pct", "loss_drift"};
const std::vector<std::string> kConfigurationKeys = {"name", "match", "device", "set"};
const std::vector<std::string> kOptimizerKeys = {"name", "lr", "momentum", "weight_decay"};
const std::vector<std::string> kDataParallelKeys = {"bucket_mb"};
constexpr double kMaxBucketMb = 1024 * 1024;  // a terabyte: one bucket for any model
const std::vector<std::string> kDeviceNames = {"cpu", "cuda", "auto"};

template <typename T>
bool contains(const std::vector<T>& items, const T& s) {
  return std::find(items.begin(), items.end(), s) != items.end();
}

// Typed readers that raise InputError naming the file and the field (a dotted path).
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(file_, field, message);
  }

  void expect_object(const json& j, const std::string& field) const {
    if (!j.is_object()) fail(field, "must be an object, got " + excerpt(j));
  }

  // Object whose keys must all be in `allowed`.
  void expect_keys(const json& j, const std::string& field, const std::vector<std::string>& allowed,
                   const std::string& what) const {
    expect_object(j, field);
    for (const auto& [key, value] : j.items()) {
      if (contains(allowed, key)) continue;
      const std::string suggestion = closest_name(key, allowed);
      const std::string name = text_excerpt(key);
      fail(field.empty() ? name : field + "." + name,
           "unknown " + what + " '" + name + "' (allowed: " + join(allowed) + ")" +
               (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?"));
    }
  }

  std::string string(const json& j, const std::string& field) const {
    if (!j.is_string()) fail(field, "must be a string, got " + excerpt(j));
    return j.get<std::string>();
  }

  std::string one_of(const json& j, const std::string& field, const std::vector<std::string>& allowed,
                     const std::string& what) const {
    const std::string s = string(j, field);
    if (!contains(allowed, s))
      fail(field, "unknown " + what + " '" + text_excerpt(s) + "' (allowed: " + join(allowed) + ")");
    return s;
  }

  // One of E's names (scenario_choices.hpp), as its enum value.
  template <ScenarioChoice E>
  E choice(const json& j, const std::string& field, const std::string& what) const {
    return *parse_choice<E>(one_of(j, field, choice_names<E>(), what));
  }

  bool boolean(const json& j, const std::string& field) const {
    if (!j.is_boolean()) fail(field, "must be true or false, got " + excerpt(j));
    return j.get<bool>();
  }

  // Integers in [min_value, max_value]; a larger one is refused, never clamped.
  long long integer(const json& j, const std::string& field, long long min_value,
                    long long max_value = std::numeric_limits<long long>::max()) const {
    if (!j.is_number_integer()) fail(field, "must be an integer, got " + excerpt(j));
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(max_value))
      fail(field, "must be <= " + std::to_string(max_value) + ", got " + excerpt(j));
    const long long v = j.get<long long>();
    if (v < min_value) fail(field, "must be >= " + std::to_string(min_value) + ", got " + excerpt(j));
    if (v > max_value) fail(field, "must be <= " + std::to_string(max_value) + ", got " + excerpt(j));
    return v;
  }

  int small_int(const json& j, const std::string& field, int min_value,
                int max_value = std::numeric_limits<int>::max()) const {
    return static_cast<int>(integer(j, field, min_value, max_value));
  }

  double number(const json& j, const std::string& field, double min_value, bool strictly,
                double max_value = std::numeric_limits<double>::max()) const {
    if (!j.is_number()) fail(field, "must be a number, got " + excerpt(j));
    const double v = j.get<double>();
    if (strictly ? !(v > min_value) : !(v >= min_value))
      fail(field, detail::concat("must be ", strictly ? "> " : ">= ", min_value, ", got ", excerpt(j)));
    if (!(v <= max_value)) fail(field, detail::concat("must be <= ", max_value, ", got ", excerpt(j)));
    return v;
  }

  // An axis: a scalar (one-element axis) or a non-empty array without duplicates.
  template <typename T, typename ReadOne>
  std::vector<T> axis(const json& j, const std::string& field, ReadOne read_one) const {
    std::vector<T> values;
    if (!j.is_array()) {
      values.push_back(read_one(j, field));
      return values;
    }
    if (j.empty()) fail(field, "must not be empty (give at least one value)");
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string item = field + "[" + std::to_string(i) + "]";
      T v = read_one(j[i], item);
      if (std::find(values.begin(), values.end(), v) != values.end()) fail(item, "duplicate value " + excerpt(j[i]));
      values.push_back(std::move(v));
    }
    return values;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

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

// "gates": [{"match": {axis: value or [values]}, "step_time_pct": 5, ...}] (gate_thresholds.hpp).
void parse_gates(const Reader& r, const json& j, MatrixSpec& spec, const MatrixParseOptions& options);
// "configurations": [{"name": "tuned", "match": {...}, "device": "cuda", "set": {axis: value}}].
void parse_configurations(const Reader& r, const json& j, MatrixSpec& spec, const MatrixParseOptions& options);

// One value of a product axis, as its rule allows; normalized for comparison.
json parse_axis_value(const Reader& r, const ScenarioAxis& axis, const json& v, const std::string& field,
                      const MatrixParseOptions& options) {
  const AxisValueRule& rule = axis.product->rule;
  switch (rule.kind) {
    case AxisValueRule::Kind::model_name: {
      const std::string name = r.string(v, field);
      check_model_name(r, name, field, options);
      return name;
    }
    case AxisValueRule::Kind::choice: return r.one_of(v, field, *rule.choices, axis.name);
    case AxisValueRule::Kind::integer: return r.small_int(v, field, rule.min, rule.max);
    case AxisValueRule::Kind::boolean: return r.boolean(v, field);
  }
  throw std::logic_error("unhandled axis value rule");
}

// {axis: value or [values]} with known axis names (exclude entries and the baseline).
json parse_axis_selector(const Reader& r, const json& j, const std::string& field, const MatrixParseOptions& options,
                         bool allow_lists) {
  r.expect_keys(j, field, matrix_axis_names(), "axis");
  json out = json::object();
  for (const auto& [axis, v] : j.items()) {
    const std::string f = field + "." + axis;
    const ScenarioAxis& entry = *find_axis(axis);
    if (allow_lists && v.is_array()) {
      if (v.empty()) r.fail(f, "must not be empty");
      json list = json::array();
      for (std::size_t i = 0; i < v.size(); ++i)
        list.push_back(parse_axis_value(r, entry, v[i], f + "[" + std::to_string(i) + "]", options));
      out[axis] = list;
    } else {
      out[axis] = parse_axis_value(r, entry, v, f, options);
    }
  }
  return out;
}

// The user's own axes: {"name": [values...]}, names that are identifiers and not built-in axes,
// values that are booleans, numbers or short strings (they end up in ids).
constexpr std::size_t kMaxUserAxes = 16;
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

// Whether the matrix (axes.loop, else the top-level loop) has scenarios of trainbench's own C++
// loop: their model names are checked against the registry; a Python loop's are the user's.
bool has_cpp_loop(const json& j) {
  if (j.contains("axes") && j["axes"].is_object() && j["axes"].contains("loop") && j["axes"]["loop"].is_array())
    return std::any_of(j["axes"]["loop"].begin(), j["axes"]["loop"].end(), [](const json& v) { return v != "python"; });
  return !(j.contains("loop") && j["loop"] == "python");
}

// The loop, compile and user axes against each other and the other settings, scenario by scenario.
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

// `model`'s model_overrides merged over the matrix-wide options, as its scenarios get them.
void apply_model_overrides(const MatrixSpec& spec, const std::string& model, json& model_options,
                           json& dataset_options) {
  const auto o = spec.model_overrides.find(model);
  if (o == spec.model_overrides.end()) return;
  if (o->contains("model_options")) model_options.merge_patch((*o)["model_options"]);
  if (o->contains("dataset_options")) dataset_options.merge_patch((*o)["dataset_options"]);
}

// model_options against every model of the matrix; dataset_options against the dataset each
// model will use (the matrix's `dataset`, else the model's default), with the model's default
// dataset options under them as the dataset will see them.
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

// Every micro-batch against the samples its dataset will hold (dataset_options.samples, after
// the model's overrides and defaults): a step needs a whole batch, so a batch larger than the
// dataset would fail in its scenario after the others ran. Datasets without a `samples` option
// (a tensor file sized by its contents) are not checked here.
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

// The axes multiply before exclude removes anything: a few kilobytes of axis values could ask for
// billions of scenarios, which expand() would build in memory. 10,000 is weeks of measuring.
constexpr std::size_t kMaxScenarios = 10'000;

// How many values each product axis has, in scenario_axes() order. An axis without values (the
// batch of a batch search) counts as one: the defaults' value stands in.
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

// nlohmann resizes an array to reach an index past its end: "axes.batch.4000000000=1" would
// allocate four billion nulls. Walks the part of `segments` that exists and refuses such an index.
void check_array_indices(const json& j, const std::vector<std::string>& segments, const std::string& field) {
  const json* at = &j;
  // Past the last existing value the override creates the path, and nlohmann makes a list of any
  // numeric segment there ("new.list.4000000000" would allocate four billion nulls): a created
  // list starts empty, so only index 0 (its first value) is allowed.
  bool creating = false;
  for (const auto& segment : segments) {
    const bool digits =
        !segment.empty() && std::all_of(segment.begin(), segment.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (creating || at->is_null()) {
      creating = true;
      if (digits && segment != "0")
        throw InputError("--set", field,
                         "index " + text_excerpt(segment, 20) + " is past the end of the list (0 values)");
    } else if (at->is_object()) {
      const auto it = at->find(segment);
      if (it == at->end()) creating = true;
      else at = &*it;
    } else if (at->is_array()) {
      if (!digits) return;  // not an index: nlohmann's own error says so
      // More than 9 digits is past the end of any list a matrix holds (and past stoul's range).
      const std::size_t index = segment.size() > 9 ? std::string::npos : std::stoul(segment);
      if (index > at->size())
        throw InputError("--set", field,
                         "index " + text_excerpt(segment, 20) + " is past the end of the list (" +
                             std::to_string(at->size()) + " values)");
      if (index == at->size()) creating = true;  // appends one value
      else at = &(*at)[index];
    } else {
      return;  // a scalar in the way: nlohmann's own error says so
    }
  }
}

// Nesting depth of `j` (a scalar is 0, [] is 1), without recursion. A file is bounded by
// check_json_bounds as it is read, but overrides nest values into values: each one could go
// 64 levels deeper than the last, until dump and copy overflow the stack.
int nesting_depth(const json& j) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> pending{{&j, 0}};
  while (!pending.empty()) {
    const auto [value, depth] = pending.back();
    pending.pop_back();
    if (!value->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *value) pending.emplace_back(&child, depth + 1);
  }
  return deepest;
}

// A bare --set value is kept as a string, and results.json, the history and every report dump
// it: text that is not UTF-8 would make that dump throw after the whole run.
bool valid_utf8(const std::string& text) {
  try {
    (void)json(text).dump();
    return true;
  } catch (const json::type_error&) { return false; }
}

bool matches_selector(const MatrixSpec& spec, const ScenarioParams& p, const json& selector) {
  for (const auto& [axis, wanted] : selector.items()) {
    const json actual = axis_value(spec, p, axis);
    const bool hit =
        wanted.is_array() ? std::find(wanted.begin(), wanted.end(), actual) != wanted.end() : wanted == actual;
    if (!hit) return false;
  }
  return true;
}

void parse_gates(const Reader& r, const json& j, MatrixSpec& spec, const MatrixParseOptions& options) {
  if (!j.is_array()) r.fail("gates", "must be a list of rules, got " + excerpt(j));
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string field = "gates[" + std::to_string(i) + "]";
    r.expect_object(j[i], field);
    r.expect_keys(j[i], field, kGateKeys, "gate key");
    GateRule rule;
    if (j[i].contains("match")) {
      if (j[i]["match"].is_object() && j[i]["match"].empty()) r.fail(field + ".match", "must name at least one axis");
      rule.match = parse_axis_selector(r, j[i]["match"], field + ".match", options, true);
    }
    const auto threshold = [&](const char* key, double max_value, std::optional<double>& out) {
      if (j[i].contains(key)) out = r.number(j[i][key], field + "." + key, 0.0, true, max_value);
    };
    threshold("step_time_pct", 1000.0, rule.thresholds.step_time_pct);
    threshold("peak_memory_pct", 1000.0, rule.thresholds.peak_memory_pct);
    threshold("loss_drift", 10.0, rule.thresholds.loss_drift);
    if (rule.thresholds.empty()) r.fail(field, "names no threshold (step_time_pct, peak_memory_pct or loss_drift)");
    spec.gates.push_back(std::move(rule));
  }
}

void parse_configurations(const Reader& r, const json& j, MatrixSpec& spec, const MatrixParseOptions& options) {
  if (!j.is_array() || j.empty()) r.fail("configurations", "must be a non-empty list of rules, got " + excerpt(j));
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string field = "configurations[" + std::to_string(i) + "]";
    r.expect_object(j[i], field);
    r.expect_keys(j[i], field, kConfigurationKeys, "configuration key");
    MatrixSpec::ConfigurationRule rule;
    if (!j[i].contains("name")) r.fail(field + ".name", "is required");
    rule.name = r.string(j[i]["name"], field + ".name");
    const bool identifier =
        !rule.name.empty() && rule.name.size() <= 24 && !std::isdigit(static_cast<unsigned char>(rule.name[0])) &&
        std::all_of(rule.name.begin(), rule.name.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
    if (!identifier)
      r.fail(field + ".name",
             "a configuration's name is letters, digits, _ and - (at most 24, not starting with a "
             "digit): it ends the scenario id");
    if (j[i].contains("match")) {
      if (j[i]["match"].is_object() && j[i]["match"].empty()) r.fail(field + ".match", "must name at least one axis");
      rule.match = parse_axis_selector(r, j[i]["match"], field + ".match", options, true);
    }
    if (j[i].contains("device")) {
      rule.device = r.string(j[i]["device"], field + ".device");
      if (rule.device != "cpu" && rule.device != "cuda")
        r.fail(field + ".device", "must be \"cpu\" or \"cuda\", got " + excerpt(j[i]["device"]));
    }
    if (j[i].contains("set")) rule.set = parse_axis_selector(r, j[i]["set"], field + ".set", options, false);
    if (std::find(spec.configuration_names.begin(), spec.configuration_names.end(), rule.name) ==
        spec.configuration_names.end())
      spec.configuration_names.push_back(rule.name);
    spec.configurations.push_back(std::move(rule));
  }
  // A rule for another device is left out: say so, once per rule.
  const std::string device = to_string(spec.defaults.device);
  for (std::size_t i = 0; i < spec.configurations.size(); ++i) {
    const auto& rule = spec.configurations[i];
    if (!rule.device.empty() && rule.device != device)
      spec.baseline_notes.push_back("configuration " + rule.name + ": configurations[" + std::to_string(i) + "] (" +
                                    rule.set.dump() + ") is for " + rule.device + ", left out on " + device);
  }
}

// A gate whose selector matches nothing is a typo waiting to let a regression through; unless a
// --set override changed the axes it selects on (then it may rightly match nothing).
void check_gates_match(const Reader& r, const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios,
                       const std::vector<std::string>& set_overrides);

// The product axes whose values a --set override may have changed: axes.batch=1 and
// axes.batch.0=8 change batch, axes={...} every axis, model=gpt2 the model axis.
std::vector<std::string> axes_set_on_command_line(const std::vector<std::string>& set_overrides) {
  std::vector<std::string> axes;
  const auto add = [&](const std::string& name) {
    const ScenarioAxis* axis = find_axis(name);
    if (axis && axis->product && std::find(axes.begin(), axes.end(), name) == axes.end()) axes.push_back(name);
  };
  for (const auto& item : set_overrides) {
    const std::string key = item.substr(0, item.find('='));
    const std::string first = key.substr(0, key.find('.'));
    if (first != "axes") {
      if (first == key) add(first);  // a top-level key that is an axis ("model")
      continue;
    }
    if (first == key) {
      for (const ScenarioAxis& axis : scenario_axes()) add(axis.name);
      continue;
    }
    const std::string rest = key.substr(first.size() + 1);
    add(rest.substr(0, rest.find('.')));
  }
  return axes;
}

void check_gates_match(const Reader& r, const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios,
                       const std::vector<std::string>& set_overrides) {
  const auto overridden = axes_set_on_command_line(set_overrides);
  for (std::size_t i = 0; i < spec.gates.size(); ++i) {
    const json& match = spec.gates[i].match;
    if (match.empty()) continue;
    const bool any = std::any_of(scenarios.begin(), scenarios.end(),
                                 [&](const ScenarioParams& p) { return matches_selector(spec, p, match); });
    const bool touched = std::any_of(match.items().begin(), match.items().end(), [&](const auto& item) {
      return std::find(overridden.begin(), overridden.end(), item.key()) != overridden.end();
    });
    if (!any && !touched) r.fail("gates[" + std::to_string(i) + "].match", "matches no scenario of the matrix");
  }
}

// The values an axis has in the matrix, as its baseline entries write them.
std::vector<json> written_values(const MatrixSpec& spec, const ScenarioAxis& axis) {
  std::vector<json> values;
  for (std::size_t i = 0; i < axis.product->size(spec); ++i) values.push_back(axis.product->written(spec, i));
  return values;
}

std::string values_text(const std::vector<json>& values) {
  std::string text;
  for (const auto& v : values) text += (text.empty() ? "" : ", ") + axis_text(v);
  return text;
}

// The written baseline against the expanded scenarios. A key whose axis a --set override changed
// so that it no longer has the key's value drops out (the axis then takes its default baseline
// value), with a note in spec.baseline_notes; a baseline that still matches no scenario is
// refused, naming the axis. A capacity search's batch is found later: not checked.
void settle_baseline(const Reader& r, MatrixSpec& spec, const std::vector<std::string>& set_overrides) {
  if (spec.baseline.empty() || spec.batch_search) return;
  const auto set_axes = axes_set_on_command_line(set_overrides);
  for (const ScenarioAxis& axis : scenario_axes()) {
    if (!axis.product || !spec.baseline.contains(axis.name)) continue;
    const auto values = written_values(spec, axis);
    const json& wanted = spec.baseline[axis.name];
    if (std::find(values.begin(), values.end(), wanted) != values.end()) continue;
    if (std::find(set_axes.begin(), set_axes.end(), axis.name) == set_axes.end())
      r.fail(std::string("baseline.") + axis.name, axis_text(wanted) + " matches no scenario: axes." + axis.name +
                                                       " has " + values_text(values) + " (name one of them, or leave " +
                                                       axis.name + " out of the baseline)");
    spec.baseline_notes.push_back(std::string("baseline: ") + axis.name + " " + axis_text(wanted) +
                                  " dropped out: --set changed axes." + axis.name + " to " + values_text(values) +
                                  " (docs/writing-a-matrix.md#the-baseline)");
    spec.baseline.erase(axis.name);
  }
  const auto scenarios = expand(spec);
  if (std::none_of(scenarios.begin(), scenarios.end(),
                   [&](const ScenarioParams& p) { return matches_selector(spec, p, spec.baseline); }))
    r.fail("baseline", spec.baseline.dump() +
                           " matches no scenario: each value is on its axis, but exclude "
                           "removes the combination");
}

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

json apply_set_overrides(json j, const std::vector<std::string>& overrides) {
  for (const auto& item : overrides) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", text_excerpt(item), "expected KEY=VALUE, e.g. steps.max=20 or axes.workers=[0,2]");
    if (!valid_utf8(item)) throw InputError("--set", "", "an override is not valid UTF-8 text");
    const std::string key = item.substr(0, eq);
    const std::string text = item.substr(eq + 1);
    const std::string field = text_excerpt(key);  // a message quotes a short part of a long key
    // Every segment is one more level of nesting in the matrix.
    if (std::count(key.begin(), key.end(), '.') >= kMaxJsonDepth)
      throw InputError("--set", field, "has more than " + std::to_string(kMaxJsonDepth) + " path segments");
    std::string pointer;
    std::vector<std::string> segments;
    std::size_t start = 0;
    while (start <= key.size()) {
      const auto dot = std::min(key.find('.', start), key.size());
      const std::string segment = key.substr(start, dot - start);
      if (segment.empty()) throw InputError("--set", field, "empty path segment");
      pointer += "/";
      for (char c : segment) pointer += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
      segments.push_back(segment);
      start = dot + 1;
    }
    check_array_indices(j, segments, field);
    // A value that does not parse as JSON is a bare string: device=cpu. Too deep or out of range
    // is refused either way, as it would be in the file.
    check_json_bounds(text, "--set", field);
    json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;
    try {
      j[json::json_pointer(pointer)] = std::move(value);
    } catch (const json::exception& e) {
      throw InputError("--set", field, "cannot set this path: " + json_error_text(e));
    }
    if (nesting_depth(j) > kMaxJsonDepth)
      throw InputError("--set", field, "nests the matrix more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  }
  return j;
}

json axis_value(const MatrixSpec& spec, const ScenarioParams& p, const std::string& axis) {
  const ScenarioAxis* entry = find_axis(axis);
  if (entry == nullptr || !entry->product) throw std::invalid_argument("unknown axis '" + axis + "'");
  if (axis == "batch") {  // as the matrix writes it: effective when held, global when strong
    const long long batch = spec.hold_effective_batch ? p.effective_batch : p.batch;
    return p.scaling == ScalingMode::strong ? batch * p.world_size : batch;
  }
  return entry->value(p);
}

std::vector<ScenarioParams> expand(const MatrixSpec& spec) {
  std::vector<const ProductAxis*> axes;
  for (const ScenarioAxis& axis : scenario_axes())
    if (axis.product) axes.push_back(&*axis.product);
  std::vector<ScenarioParams> out;
  const std::string device = to_string(spec.defaults.device);
  for_each_combination(product_sizes(spec), [&](const std::vector<std::size_t>& indices) {
    ScenarioParams combination = spec.defaults;
    // An axis without values (the batch of a batch search, decided later) keeps the defaults'.
    for (std::size_t a = 0; a < axes.size(); ++a)
      if (axes[a]->size(spec) > 0) axes[a]->apply(spec, indices[a], combination);
    // Once per configuration (once when the matrix names none), its rules' settings applied.
    const std::vector<std::string> names =
        spec.configuration_names.empty() ? std::vector<std::string>{""} : spec.configuration_names;
    for (const std::string& name : names) {
      ScenarioParams p = combination;
      p.configuration = name;
      for (const auto& rule : spec.configurations) {
        if (rule.name != name || (!rule.device.empty() && rule.device != device) ||
            !matches_selector(spec, combination, rule.match))
          continue;
        for (const auto& [axis, value] : rule.set.items()) find_axis(axis)->read(json{{axis, value}}, axis.c_str(), p);
      }
      const bool holds_effective = spec.hold_effective_batch && !spec.batch_search;
      const int batch = p.batch;  // the batch axis's value: effective when held
      if (holds_effective) {
        p.effective_batch = batch;
        p.batch = batch / p.accumulation;
      } else {
        p.effective_batch = batch * p.accumulation;
      }
      // Strong scaling: the batch the matrix names is the global one, split over the ranks.
      const bool strong = p.scaling == ScalingMode::strong && !spec.batch_search;
      const int micro = p.batch;
      if (strong) {
        p.batch = micro / p.world_size;
        p.effective_batch = p.batch * p.accumulation;
      }
      apply_model_overrides(spec, p.model, p.model_options, p.dataset_options);
      for (const GateRule& rule : spec.gates)
        if (matches_selector(spec, p, rule.match)) p.gates.override_with(rule.thresholds);
      // The reducer is always there with several ranks: "always" only adds world size 1's twin.
      if (p.reducer == ReducerMode::always && p.world_size > 1) continue;
      const bool excluded = std::any_of(spec.exclude.begin(), spec.exclude.end(),
                                        [&](const json& e) { return matches_selector(spec, p, e); });
      if (excluded) continue;
      if (holds_effective && batch % p.accumulation != 0)
        throw InputError(spec.file, "axes.batch/axes.accumulation",
                         "hold_effective_batch: effective batch " + std::to_string(batch) +
                             " is not divisible by accumulation " + std::to_string(p.accumulation) +
                             " (exclude this combination or change the values)");
      if (strong && micro % p.world_size != 0)
        throw InputError(spec.file, "axes.batch/axes.world_size",
                         "scaling \"strong\": micro-batch " + std::to_string(micro) +
                             " is not divisible by world_size " + std::to_string(p.world_size) +
                             " (exclude this combination or change the values)");
      // The user's axes vary fastest: their first values come first (the baseline's).
      std::vector<std::size_t> user_sizes;
      for (const auto& [name, values] : spec.user_axes) user_sizes.push_back(values.size());
      if (user_sizes.empty()) {
        out.push_back(std::move(p));
        continue;
      }
      for_each_combination(user_sizes, [&](const std::vector<std::size_t>& chosen) {
        ScenarioParams q = p;
        for (std::size_t a = 0; a < chosen.size(); ++a)
          q.user_axes[spec.user_axes[a].first] = spec.user_axes[a].second[chosen[a]];
        out.push_back(std::move(q));
      });
    }
  });
  if (spec.configuration_names.empty()) return out;
  // A configuration that sets an axis makes that axis's combinations equal: measured once.
  std::vector<ScenarioParams> unique;
  std::set<std::string> seen;
  for (auto& p : out)
    if (seen.insert(scenario_key(p).dump()).second) unique.push_back(std::move(p));
  return unique;
}

BaselineChoice choose_baseline(const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios) {
  BaselineChoice choice;
  choice.wanted = json::object();
  for (const ScenarioAxis& axis : scenario_axes()) {
    if (!axis.product || axis.product->size(spec) == 0) continue;  // the batch of a batch search
    // The axis's default baseline value when the matrix has it, else its first value.
    const auto values = written_values(spec, axis);
    const json& preferred = axis.product->baseline;
    const bool has_preferred =
        !preferred.is_null() && std::find(values.begin(), values.end(), preferred) != values.end();
    choice.wanted[axis.name] = has_preferred ? preferred : values.front();
  }
  for (const auto& [axis, v] : spec.baseline.items()) choice.wanted[axis] = v;
  for (const json* selector : {static_cast<const json*>(&choice.wanted), &spec.baseline}) {
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      if (matches_selector(spec, scenarios[i], *selector)) {
        choice.index = i;
        // The written baseline alone (its combination with the defaults is excluded) still
        // matched what the matrix asked for; the defaults alone did not.
        choice.matched = selector == &choice.wanted || !spec.baseline.empty();
        return choice;
      }
    }
  }
  return choice;
}

}  // namespace tb
