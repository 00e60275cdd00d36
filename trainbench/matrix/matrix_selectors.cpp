#include <trainbench/matrix/matrix_selectors.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <trainbench/matrix/matrix_sections.hpp>

namespace tb::matrix_detail {

namespace {

const std::vector<std::string> kGateKeys = {"match", "step_time_pct", "peak_memory_pct", "loss_drift"};
const std::vector<std::string> kConfigurationKeys = {"name", "match", "device", "set"};

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
std::string values_text(const std::vector<json>& values) {
  std::string text;
  for (const auto& v : values) text += (text.empty() ? "" : ", ") + axis_text(v);
  return text;
}

}  // namespace

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
std::vector<json> written_values(const MatrixSpec& spec, const ScenarioAxis& axis) {
  std::vector<json> values;
  for (std::size_t i = 0; i < axis.product->size(spec); ++i) values.push_back(axis.product->written(spec, i));
  return values;
}

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

}  // namespace tb::matrix_detail

namespace tb {

using nlohmann::json;

BaselineChoice choose_baseline(const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios) {
  BaselineChoice choice;
  choice.wanted = json::object();
  for (const ScenarioAxis& axis : scenario_axes()) {
    if (!axis.product || axis.product->size(spec) == 0) continue;  // the batch of a batch search
    // The axis's default baseline value when the matrix has it, else its first value.
    const auto values = matrix_detail::written_values(spec, axis);
    const json& preferred = axis.product->baseline;
    const bool has_preferred =
        !preferred.is_null() && std::find(values.begin(), values.end(), preferred) != values.end();
    choice.wanted[axis.name] = has_preferred ? preferred : values.front();
  }
  for (const auto& [axis, v] : spec.baseline.items()) choice.wanted[axis] = v;
  for (const json* selector : {static_cast<const json*>(&choice.wanted), &spec.baseline}) {
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      if (matrix_detail::matches_selector(spec, scenarios[i], *selector)) {
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
