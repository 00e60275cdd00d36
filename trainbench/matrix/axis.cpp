#include <trainbench/matrix/axis.hpp>

#include <algorithm>
#include <type_traits>
#include <utility>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/support/json_integer.hpp>

namespace tb {

using nlohmann::json;

namespace {

// A field's value as scenario_key writes it, and back.
json to_key(const std::string& v) { return v; }
json to_key(int v) { return v; }
json to_key(Precision v) { return to_string(v); }
json to_key(bool v) { return v; }
template <ScenarioChoice E>
json to_key(E v) {
  return to_string(v);
}

void from_key(const json& j, std::string& v) { v = j.get<std::string>(); }
void from_key(const json& j, int& v) { v = j.get<int>(); }
void from_key(const json& j, Precision& v) { v = *parse_precision(j.get<std::string>()); }
void from_key(const json& j, bool& v) { v = j.get<bool>(); }
template <ScenarioChoice E>
void from_key(const json& j, E& v) {  // a value the axis's rule accepted
  v = *parse_choice<E>(j.get<std::string>());
}

// A field of results.json; absent, it keeps the value it had.
void read_key(const json& j, const char* name, std::string& v) { v = text_field(j, name, v); }
void read_key(const json& j, const char* name, int& v) { v = integer_field(j, name, v); }
void read_key(const json& j, const char* name, bool& v) {
  if (const auto it = j.find(name); it != j.end() && it->is_boolean()) v = it->get<bool>();
}
void read_key(const json& j, const char* name, Precision& v) {
  // A name this build does not know keeps the value too: the file still loads.
  if (const auto p = parse_precision(text_field(j, name, std::string(to_string(v))))) v = *p;
}
template <ScenarioChoice E>
void read_key(const json& j, const char* name, E& v) {
  if (const auto e = parse_choice<E>(text_field(j, name, to_string(v)))) v = *e;
}

// The names of a field's type, when it is one of fixed choices.
template <typename T>
const std::vector<std::string>* names_of() {
  if constexpr (ScenarioChoice<T>) return &choice_names<T>();
  if constexpr (std::is_same_v<T, Precision>) return &precision_names();
  return nullptr;
}

template <auto Field>
ScenarioAxis fixed_axis(const char* name, AxisIdPart id, AxisListingColumn listing) {
  using Value = std::remove_cvref_t<decltype(std::declval<ScenarioParams&>().*Field)>;
  return {.name = name,
          .value = [](const ScenarioParams& p) { return to_key(p.*Field); },
          .read = [](const json& j, const char* key, ScenarioParams& p) { read_key(j, key, p.*Field); },
          .choices = names_of<Value>(),
          .id = id,
          .listing = listing};
}

template <auto Field, auto Values>
ScenarioAxis product(const char* name, AxisIdPart id, AxisListingColumn listing, AxisValueRule rule, json baseline) {
  ScenarioAxis axis = fixed_axis<Field>(name, id, listing);
  axis.product =
      ProductAxis{.rule = rule,
                  .baseline = std::move(baseline),
                  .size = [](const MatrixSpec& s) { return (s.*Values).size(); },
                  .written = [](const MatrixSpec& s, std::size_t i) { return to_key((s.*Values)[i]); },
                  .store =
                      [](MatrixSpec& s, const std::vector<json>& values) {
                        auto& list = s.*Values;
                        list.clear();
                        for (const auto& v : values) {
                          typename std::decay_t<decltype(list)>::value_type value{};  // vector<bool> has no bool&
                          from_key(v, value);
                          list.push_back(value);
                        }
                      },
                  .apply = [](const MatrixSpec& s, std::size_t i, ScenarioParams& p) { p.*Field = (s.*Values)[i]; }};
  return axis;
}

template <ScenarioChoice E>
AxisValueRule choices() {
  return {.kind = AxisValueRule::Kind::choice, .choices = &choice_names<E>()};
}
constexpr AxisValueRule kSwitch{.kind = AxisValueRule::Kind::boolean};

AxisValueRule integers(int min, int max) { return {.kind = AxisValueRule::Kind::integer, .min = min, .max = max}; }

// The id parts of the fields `keep` accepts; trailing parts last, then the user's own axes
// ("/my_flag=true", by name) when `with_user`.
template <typename Keep>
std::string id_of(const ScenarioParams& p, Keep keep, bool with_user = true) {
  std::string head, tail;
  for (const ScenarioAxis& axis : scenario_axes()) {
    if (!axis.id.shown || !keep(axis)) continue;
    const std::string text = axis_text(axis.value(p));
    if (axis.id.omitted_when != nullptr && text == axis.id.omitted_when) continue;
    (axis.id.trailing ? tail : head) += axis.id.prefix + (axis.id.shown_as ? std::string(axis.id.shown_as) : text);
  }
  if (with_user && p.user_axes.is_object())
    for (const auto& [name, value] : p.user_axes.items()) tail += "/" + name + "=" + axis_text(value);
  return head + tail;
}

// An axis that defines the workload or the ranks, not a setting to tune (ScenarioAxis::knob).
ScenarioAxis not_a_knob(ScenarioAxis axis) {
  axis.knob = false;
  return axis;
}

// An axis that scenario_key leaves out at `value` (ScenarioAxis::key_omitted_when).
ScenarioAxis keyed_unless(ScenarioAxis axis, const char* value) {
  axis.key_omitted_when = value;
  return axis;
}

}  // namespace

const std::vector<ScenarioAxis>& scenario_axes() {
  static const std::vector<ScenarioAxis> axes = {
      not_a_knob(product<&ScenarioParams::model, &MatrixSpec::models>(
          "model", {}, {.header = "model"}, {.kind = AxisValueRule::Kind::model_name}, nullptr)),
      not_a_knob(fixed_axis<&ScenarioParams::dataset>("dataset", {.prefix = "@", .omitted_when = ""},
                                                      {.header = "dataset", .empty_text = "(default)"})),
      not_a_knob(fixed_axis<&ScenarioParams::device>("device", {.shown = false}, {.header = "device"})),
      // Ids leave out adam, the default, and end with any other optimizer.
      fixed_axis<&ScenarioParams::optimizer>("optimizer", {.prefix = "/", .omitted_when = "adam", .trailing = true},
                                             {}),
      // Ids end with "/strong" for strong scaling (the matrix's batch was global).
      not_a_knob(fixed_axis<&ScenarioParams::scaling>("scaling",
                                                      {.prefix = "/", .omitted_when = "weak", .trailing = true}, {})),
      product<&ScenarioParams::precision, &MatrixSpec::precisions>(
          "precision", {.prefix = "/"}, {.header = "precision"},
          {.kind = AxisValueRule::Kind::choice, .choices = &precision_names()}, "fp32"),
      product<&ScenarioParams::workers, &MatrixSpec::workers>(
          "workers", {.prefix = "/w"}, {.header = "workers", .numeric = true}, integers(0, kMaxWorkers), 0),
      product<&ScenarioParams::accumulation, &MatrixSpec::accumulation>(
          "accumulation", {.prefix = "/a"}, {.header = "accum", .numeric = true}, integers(1, kMaxAccumulation), 1),
      // The micro-batch; with hold_effective_batch the matrix's values are effective batches and
      // expand() divides them by the accumulation.
      product<&ScenarioParams::batch, &MatrixSpec::batch>(
          "batch", {.prefix = "/b"}, {.header = "micro-batch", .numeric = true}, integers(1, kMaxBatch), nullptr),
      // Data-parallel ranks; ids leave out 1 ("/r2" is two ranks).
      not_a_knob(product<&ScenarioParams::world_size, &MatrixSpec::world_size>(
          "world_size", {.prefix = "/r", .omitted_when = "1"},
          {.header = "ranks", .numeric = true, .hidden_when_all = "1"}, integers(1, kMaxWorldSize), 1)),
      // "always" runs world size 1 through the reducer too: DDP's own cost, without peers.
      product<&ScenarioParams::reducer, &MatrixSpec::reducer>(
          "reducer", {.prefix = "/reducer-", .omitted_when = "auto"}, {}, choices<ReducerMode>(), "auto"),
      // The optimisations after the article's four; ids name only what is switched on.
      product<&ScenarioParams::memory_format, &MatrixSpec::memory_format>(
          "memory_format", {.prefix = "/", .omitted_when = "contiguous"},
          {.header = "memory", .hidden_when_all = "contiguous"}, choices<MemoryFormatKind>(), "contiguous"),
      product<&ScenarioParams::pin_memory, &MatrixSpec::pin_memory>(
          "pin_memory", {.prefix = "/", .omitted_when = "false", .shown_as = "pinned"},
          {.header = "pinned", .hidden_when_all = "false"}, kSwitch, false),
      product<&ScenarioParams::cudnn_benchmark, &MatrixSpec::cudnn_benchmark>(
          "cudnn_benchmark", {.prefix = "/", .omitted_when = "false", .shown_as = "cudnn-bench"},
          {.header = "cudnn-bench", .hidden_when_all = "false"}, kSwitch, false),
      product<&ScenarioParams::cuda_graphs, &MatrixSpec::cuda_graphs>(
          "cuda_graphs", {.prefix = "/", .omitted_when = "false", .shown_as = "graphs"},
          {.header = "graphs", .hidden_when_all = "false"}, kSwitch, false),
      // After the optimizer's name: ".../adamw/fused".
      product<&ScenarioParams::optimizer_impl, &MatrixSpec::optimizer_impl>(
          "optimizer_impl", {.prefix = "/", .omitted_when = "for_loop", .trailing = true},
          {.header = "opt-impl", .hidden_when_all = "for_loop"}, choices<OptimizerImpl>(), "for_loop"),
      // Whose loop: ".../python" for the user's Python loop (docs/python-loop.md), and how
      // torch.compile compiled it (Python loops only).
      keyed_unless(product<&ScenarioParams::loop, &MatrixSpec::loop>(
                       "loop", {.prefix = "/", .omitted_when = "cpp", .trailing = true},
                       {.header = "loop", .hidden_when_all = "cpp"}, choices<LoopKind>(), nullptr),
                   "cpp"),
      keyed_unless(product<&ScenarioParams::compile, &MatrixSpec::compile>(
                       "compile", {.prefix = "/compile-", .omitted_when = "eager", .trailing = true},
                       {.header = "compile", .hidden_when_all = "eager"}, choices<CompileMode>(), "eager"),
                   "eager"),
  };
  return axes;
}

const ScenarioAxis* find_axis(std::string_view name) {
  for (const ScenarioAxis& axis : scenario_axes())
    if (name == axis.name) return &axis;
  return nullptr;
}

std::string axis_text(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string scenario_id_without(const ScenarioParams& p, std::string_view left_out) {
  return id_of(p, [&](const ScenarioAxis& axis) { return axis.name != left_out; });
}

std::string scenario_id_without_all(const ScenarioParams& p, const std::vector<std::string_view>& left_out) {
  return id_of(p, [&](const ScenarioAxis& axis) {
    return std::find(left_out.begin(), left_out.end(), axis.name) == left_out.end();
  });
}

std::string workload_of(const ScenarioParams& p) {
  return id_of(
      p,
      [](const ScenarioAxis& axis) {
        const std::string_view name = axis.name;
        return name == "model" || name == "dataset";
      },
      false);
}

json settings_key(const ScenarioParams& p) {
  json key = scenario_key(p);
  for (const char* name : {"model", "dataset", "device"}) key.erase(name);
  return key;
}

std::string series_label(const ScenarioParams& p, std::string_view varying) {
  const auto splits = [&](const ScenarioAxis& axis) { return axis.splits_chart_series && axis.name != varying; };
  std::string label = id_of(p, splits);
  for (const ScenarioAxis& axis : scenario_axes())
    if (!axis.id.shown && splits(axis)) label += " (" + axis_text(axis.value(p)) + ")";
  return label;
}

}  // namespace tb
