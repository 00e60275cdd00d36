// The scenario axes as one table: for each field that identifies a scenario, how a matrix writes
// its values, how it reads in scenario ids and keys, in `trainbench list` and the CSV, and whether
// it splits chart series. scenario_id, scenario_key, the matrix parser, expand(), the listing, the
// CSV and the charts all walk this table, so an axis is its fields in ScenarioParams and
// MatrixSpec, one entry in axis.cpp and its effect on the training loop (README.md "Adding an axis").
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/scenario.hpp>

namespace tb {

struct MatrixSpec;

// What one value of a product axis may be, as axes, exclude and baseline entries write it.
struct AxisValueRule {
  enum class Kind { model_name, choice, integer, boolean };
  Kind kind = Kind::integer;
  const std::vector<std::string>* choices = nullptr;  // Kind::choice
  int min = 0;                                        // Kind::integer, inclusive
  int max = 0;
};

// How a field reads in scenario_id, e.g. "mlp@tokens/fp32/w0/a1/b64/sgd".
struct AxisIdPart {
  bool shown = true;
  const char* prefix = "";             // before the value: "/w" makes "/w0"
  const char* omitted_when = nullptr;  // a value left out of the id (a default)
  bool trailing = false;               // after every other part
  const char* shown_as = nullptr;      // text instead of the value: a switch reads "/pinned", not "/true"
};

// A column of `trainbench list`.
struct AxisListingColumn {
  const char* header = nullptr;           // nullptr: no column
  bool numeric = false;                   // numbers right-aligned, text left-aligned
  const char* empty_text = "";            // shown for an empty value
  const char* hidden_when_all = nullptr;  // no column when every scenario has this value
};

// The typed link between a product axis, its value list in MatrixSpec and its ScenarioParams field.
struct ProductAxis {
  AxisValueRule rule;
  nlohmann::json baseline;  // the default baseline's value; null: the axis's first value
  std::size_t (*size)(const MatrixSpec&);
  nlohmann::json (*written)(const MatrixSpec&, std::size_t index);        // a value as the matrix writes it
  void (*store)(MatrixSpec&, const std::vector<nlohmann::json>& values);  // values the rule accepted
  void (*apply)(const MatrixSpec&, std::size_t index, ScenarioParams&);
};

struct ScenarioAxis {
  const char* name;  // the key in axes / exclude / baseline, in scenario_key and results.json; the CSV column
  nlohmann::json (*value)(const ScenarioParams&);                                 // as scenario_key has it
  void (*read)(const nlohmann::json& params, const char* name, ScenarioParams&);  // from results.json
  // The names a field of fixed choices may take (device, optimizer, precision...); nullptr for
  // free text (model, dataset), numbers and switches.
  const std::vector<std::string>* choices = nullptr;
  AxisIdPart id;
  AxisListingColumn listing;
  // scenario_key leaves the field out at this value (an axis added after runs were recorded: their
  // keys, written without it, still match); nullptr: always in the key.
  const char* key_omitted_when = nullptr;
  bool splits_chart_series = true;  // scenarios that differ here are separate lines of a scaling chart
  // A setting whose effect on speed the reports estimate (measure/axis_effects.hpp): false for
  // what defines the workload (model, dataset, device) and for the ranks, which the scaling
  // section measures; "ResNet is 11x faster than the transformer" answers no question.
  bool knob = true;
  // A product axis: expand() multiplies its values. Without one the field is fixed, one value per
  // matrix from a top-level key (dataset, device, optimizer).
  std::optional<ProductAxis> product;
};

// Every field that identifies a scenario, in scenario_key and CSV order. The product axes among
// them, in this order, are the order of expand() (the last varies fastest).
const std::vector<ScenarioAxis>& scenario_axes();

// The entry named `name`; nullptr when there is none.
const ScenarioAxis* find_axis(std::string_view name);

// A value as text: a string as it is, a number in decimal.
std::string axis_text(const nlohmann::json& value);

// scenario_id with the field `left_out` left out ("" leaves out none).
std::string scenario_id_without(const ScenarioParams& p, std::string_view left_out);
// scenario_id with every field in `left_out` left out.
std::string scenario_id_without_all(const ScenarioParams& p, const std::vector<std::string_view>& left_out);

// The workload a scenario measures: its model and dataset, as its id begins ("resnet50",
// "mlp@synthetic"). Speed-ups, verdicts, setting effects and geomeans are computed within one
// workload, against its scenario with the baseline's settings (measure/comparison.hpp): a
// transformer against a ResNet answers no question.
std::string workload_of(const ScenarioParams& p);

// The scenario's settings: scenario_key without the workload (model, dataset) and the device.
// The scenarios of two workloads with equal settings keys are measured at the same settings.
nlohmann::json settings_key(const ScenarioParams& p);

// The scenario id with the field `varying` left out and the fields that are not in ids in
// parentheses: "mlp/fp32/a1/b64 (cpu)" names the scenarios that differ only in workers.
std::string series_label(const ScenarioParams& p, std::string_view varying);

}  // namespace tb
