// Registries of models and datasets. Built-ins register themselves from their own file; a user's
// project linking trainbench_torch registers its own the same way (see README "Your own model").
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/data/example.h>
#include <torch/nn/module.h>
#include <nlohmann/json.hpp>

#include <trainbench/capacity/flops.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/option_spec.hpp>

namespace tb {

// What a dataset hands the model factory: enough to size the first and last layers.
struct DatasetInfo {
  std::vector<std::int64_t> input_shape;  // per sample, e.g. {512} or {3, 64, 64} or {seq_len}
  std::int64_t num_classes = 0;           // classification targets
  std::int64_t vocab_size = 0;            // language modelling
  std::int64_t seq_len = 0;               // tokens per sample (0: not a sequence task)
};

// A random-access source of samples; get() runs on data-loader worker threads.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual torch::data::Example<> get(std::size_t index) = 0;
  virtual std::size_t size() const = 0;
  virtual const DatasetInfo& info() const = 0;
};

// A model under training: a module plus its loss and its FLOP count.
class TrainableModel {
 public:
  virtual ~TrainableModel() = default;
  virtual torch::nn::Module& module() = 0;
  virtual at::Tensor forward(const at::Tensor& input) = 0;
  virtual at::Tensor loss(const at::Tensor& output, const at::Tensor& target) = 0;
  // Per-sample layers for FLOP counting (trainbench/capacity/flops.hpp); empty = unknown.
  virtual std::vector<capacity::LayerSpec> layers_per_sample() const { return {}; }
  // Tokens per sample for tokens/s (0 for non-sequence models).
  virtual std::int64_t tokens_per_sample() const { return 0; }
};

struct DatasetRequest {
  nlohmann::json options = nlohmann::json::object();  // matrix "dataset_options"
  std::uint64_t seed = 42;
};

using ModelFactory = std::function<std::unique_ptr<TrainableModel>(const nlohmann::json& options, const DatasetInfo&)>;
using DatasetFactory = std::function<std::shared_ptr<SampleSource>(const DatasetRequest&)>;

// `options` declares exactly the keys the factory reads from model_options / dataset_options
// (name, type, range, default, help); matrix parsing refuses anything else before a scenario
// runs, and `trainbench models` lists them. `option_rules` are checks across options.
struct ModelEntry {
  std::string name;
  std::string description;
  std::string default_dataset;
  nlohmann::json default_dataset_options = nlohmann::json::object();
  ModelFactory factory;
  std::vector<OptionSpec> options;
  std::vector<OptionRule> option_rules;
  // Where the architecture and its figures come from (a paper, torchvision, Hugging Face), for
  // `trainbench models`; empty for trainbench's own small models.
  std::string reference;
};

struct DatasetEntry {
  std::string name;
  std::string description;
  DatasetFactory factory;
  std::vector<OptionSpec> options;
  std::vector<OptionRule> option_rules;
};

class Registry {
 public:
  static Registry& instance();
  void add_model(ModelEntry entry);
  void add_dataset(DatasetEntry entry);
  const ModelEntry& model(const std::string& name) const;      // throws std::invalid_argument
  const DatasetEntry& dataset(const std::string& name) const;  // throws std::invalid_argument
  std::vector<std::string> model_names() const;
  std::vector<std::string> dataset_names() const;
  // The catalog matrix parsing validates against: names and declared options of every model
  // and dataset, and each model's default dataset.
  void fill_parse_options(MatrixParseOptions& options) const;

 private:
  std::map<std::string, ModelEntry> models_;
  std::map<std::string, DatasetEntry> datasets_;
};

// Static registration from a model's or dataset's own file.
struct ModelRegistrar {
  explicit ModelRegistrar(ModelEntry e) { Registry::instance().add_model(std::move(e)); }
};
struct DatasetRegistrar {
  explicit DatasetRegistrar(DatasetEntry e) { Registry::instance().add_dataset(std::move(e)); }
};

// Reads an integer option with a default, raising InputError("dataset_options"/"model_options").
std::int64_t option_int(const nlohmann::json& options, const char* section, const char* key, std::int64_t fallback);

}  // namespace tb
