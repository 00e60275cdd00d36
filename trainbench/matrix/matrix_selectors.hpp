// Internal to the matrix parser: selectors, {axis: value or [values]}, and what is built from
// them: exclude entries, the baseline, gates and configurations.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/matrix_reader.hpp>

namespace tb::matrix_detail {

// One value of a product axis, as its rule allows; normalized for comparison.
json parse_axis_value(const Reader& r, const ScenarioAxis& axis, const json& v, const std::string& field,
                      const MatrixParseOptions& options);
// {axis: value or [values]} with known axis names (exclude entries and the baseline); lists
// only with `allow_lists`.
json parse_axis_selector(const Reader& r, const json& j, const std::string& field, const MatrixParseOptions& options,
                         bool allow_lists);
// Whether scenario `p` has every axis value the selector names (one of them, for a list).
bool matches_selector(const MatrixSpec& spec, const ScenarioParams& p, const json& selector);
// "gates": [{"match": {axis: value or [values]}, "step_time_pct": 5, ...}] (gate_thresholds.hpp).
void parse_gates(const Reader& r, const json& j, MatrixSpec& spec, const MatrixParseOptions& options);
// "configurations": [{"name": "tuned", "match": {...}, "device": "cuda", "set": {axis: value}}].
void parse_configurations(const Reader& r, const json& j, MatrixSpec& spec, const MatrixParseOptions& options);
// A gate whose selector matches nothing is a typo waiting to let a regression through; unless a
// --set override changed the axes it selects on (then it may rightly match nothing).
void check_gates_match(const Reader& r, const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios,
                       const std::vector<std::string>& set_overrides);
// The written baseline against the expanded scenarios. A key whose axis a --set override changed
// so that it no longer has the key's value drops out (the axis then takes its default baseline
// value), with a note in spec.baseline_notes; a baseline that still matches no scenario is
// refused, naming the axis. A capacity search's batch is found later: not checked.
void settle_baseline(const Reader& r, MatrixSpec& spec, const std::vector<std::string>& set_overrides);
// The values an axis has in the matrix, as its baseline entries write them.
std::vector<json> written_values(const MatrixSpec& spec, const ScenarioAxis& axis);

}  // namespace tb::matrix_detail
