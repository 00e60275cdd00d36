// A stand-in for the torch registry's declarations, for matrix tests and the matrix fuzz targets
// that build without torch (tests/training/torch/test_registry_options.cpp checks that the real registry
// refuses every fixture too): the built-in models and datasets with the options their factories
// read.
#pragma once
#include <optional>
#include <string>

#include <trainbench/matrix/matrix.hpp>

namespace tb {

inline OptionSpec int_option(const std::string& name, std::optional<double> max, nlohmann::json default_value) {
  return {name, OptionType::integer, 1, max, {}, std::move(default_value), ""};
}

inline MatrixParseOptions full_catalog(bool cuda = false) {
  using nlohmann::json;
  constexpr std::nullopt_t kNoMax = std::nullopt;
  MatrixParseOptions o;
  o.known_models = {"mlp", "resnet", "transformer"};
  o.known_datasets = {"synthetic", "images", "tokens"};
  o.cuda_available = cuda;
  o.model_specs["mlp"] = {{{int_option("hidden", 65536, 1024), int_option("depth", 1024, 2)}},
                          "synthetic",
                          {{"features", 512}, {"classes", 10}}};
  o.model_specs["resnet"] = {{{int_option("width", 4096, 32)}}, "images", {{"image_size", 64}}};
  OptionSet transformer{{int_option("d_model", 65536, 128), int_option("heads", 1024, 4), int_option("layers", 1024, 2),
                         int_option("ff", 262144, nullptr)}};
  transformer.rules = {{"d_model", [](const json&, const json& r) -> std::string {
                          return r["d_model"].get<int>() % r["heads"].get<int>() == 0
                                     ? ""
                                     : "must be divisible by model_options.heads";
                        }}};
  o.model_specs["transformer"] = {transformer, "tokens", {{"seq_len", 64}, {"vocab", 256}}};
  OptionSpec shape{"shape", OptionType::integer_list, 1, {}, {}, nullptr, ""};
  o.dataset_specs["synthetic"] = {{int_option("samples", kNoMax, 4096), int_option("classes", kNoMax, 10),
                                   int_option("features", kNoMax, 512), shape}};
  o.dataset_specs["tokens"] = {
      {int_option("samples", kNoMax, 4096), int_option("seq_len", kNoMax, 64), int_option("vocab", kNoMax, 256)}};
  OptionSet images{{int_option("samples", kNoMax, 2048),
                    int_option("classes", kNoMax, 10),
                    int_option("stored_size", 65535, 96),
                    int_option("image_size", 65535, 64),
                    {"path", OptionType::path, {}, {}, {}, nullptr, ""},
                    {"create", OptionType::boolean, {}, {}, {}, true, ""}}};
  images.rules = {{"image_size", [](const json&, const json& r) -> std::string {
                     return r["image_size"] <= r["stored_size"] ? "" : "must not exceed stored_size";
                   }}};
  o.dataset_specs["images"] = images;
  return o;
}

}  // namespace tb
