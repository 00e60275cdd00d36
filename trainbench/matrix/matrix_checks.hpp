// Internal to the matrix parser: the checks that need more than one section (the loops against
// the axes, component options against each model, batches against datasets, the scenario count)
// and what the expansion shares with them.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/matrix_reader.hpp>

namespace tb::matrix_detail {

// Whether the matrix (axes.loop, else the top-level loop) has scenarios of trainbench's own C++
// loop: their model names are checked against the registry; a Python loop's are the user's.
bool has_cpp_loop(const json& j);
// The loop, compile and user axes against each other and the other settings, scenario by scenario.
void check_loops(const Reader& r, const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios);
// `model`'s model_overrides merged over the matrix-wide options, as its scenarios get them.
void apply_model_overrides(const MatrixSpec& spec, const std::string& model, json& model_options,
                           json& dataset_options);
// model_options against every model of the matrix; dataset_options against the dataset each
// model will use (the matrix's `dataset`, else the model's default), with the model's default
// dataset options under them as the dataset will see them.
void check_component_options(const Reader& r, const MatrixSpec& spec, const MatrixParseOptions& options);
// Every micro-batch against the samples its dataset will hold (dataset_options.samples, after
// the model's overrides and defaults): a step needs a whole batch, so a batch larger than the
// dataset would fail in its scenario after the others ran. Datasets without a `samples` option
// (a tensor file sized by its contents) are not checked here.
void check_batches_fit_datasets(const Reader& r, const MatrixSpec& spec, const MatrixParseOptions& options,
                                const std::vector<ScenarioParams>& scenarios);
// How many values each product axis has, in scenario_axes() order. An axis without values (the
// batch of a batch search) counts as one: the defaults' value stands in.
std::vector<std::size_t> product_sizes(const MatrixSpec& spec);
// The axes multiply before exclude removes anything: a few kilobytes of axis values could ask for
// billions of scenarios, which expand() would build in memory. Refused past 10,000.
void check_scenario_count(const Reader& r, const MatrixSpec& spec);

}  // namespace tb::matrix_detail
