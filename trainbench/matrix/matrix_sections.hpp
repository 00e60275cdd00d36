// Internal to the matrix parser: the readers of the matrix's sections (optimizer, steps,
// profile, contention, data_parallel, axes, dataset_options, python, model_overrides), each
// filling its part of the spec or raising InputError naming the field.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/matrix_reader.hpp>

namespace tb::matrix_detail {

// `name` against the registry's models (when the options list them).
void check_model_name(const Reader& r, const std::string& name, const std::string& field,
                      const MatrixParseOptions& options);
void parse_optimizer(const Reader& r, const json& j, ScenarioParams& p);
void parse_data_parallel(const Reader& r, const json& j, DataParallelOptions& d);
void parse_steps(const Reader& r, const json& j, StoppingRule& s);
void parse_profile(const Reader& r, const json& j, ProfileOptions& p);
// Thresholds above which a scenario's measurements count as contended (host_load.hpp).
void parse_contention(const Reader& r, const json& j, ContentionThresholds& t);
// "axes": the product axes (and "user", the user's own); "batch": "max" sets spec.batch_search.
void parse_axes(const Reader& r, const json& axes, MatrixSpec& spec, const MatrixParseOptions& options);
void parse_dataset_options(const Reader& r, const json& j, ScenarioParams& p);
// "python": {"file": "my_loop.py", "function": "build"}: the file relative to the matrix's folder.
void parse_python(const Reader& r, const json& j, PythonLoopSpec& py);
// {model: {"model_options", "dataset_options"}} for models of this matrix, objects each.
void parse_model_overrides(const Reader& r, const json& j, MatrixSpec& spec);

}  // namespace tb::matrix_detail
