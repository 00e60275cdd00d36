// Models exported from Python: "a module file -> a TrainableModel". A loader reads one export
// format; the loss and the input spec around the module come from the matrix, so every format
// trains the same way (autocast and GradScaler around its forward, like the built-in models).
//
// TorchScript (trainbench/training/torch/models/torchscript_model.cpp, model "torchscript") is
// the only loader today: it is deprecated upstream, but in torch 2.11 it is still the only way
// to *train* a Python-defined model from C++ (torch.export / AOTInductor packages are
// inference-only). A future format plugs in as another ModelLoader with its own model name.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <trainbench/training/torch/registry.hpp>

namespace tb {

// How the module's output becomes the training loss.
enum class ExportedLoss {
  cross_entropy,  // output [N, classes] (or [N, T, vocab] for token inputs), integer targets
  mse,            // output shaped like the targets
  output,         // forward(input, target) returns the loss itself
};

// The model_options every exported model reads.
struct ExportedModelOptions {
  std::string path;  // the module file
  ExportedLoss loss = ExportedLoss::cross_entropy;
  c10::ScalarType input_dtype = c10::kFloat;  // kFloat or kLong (token ids)

  // From model_options: "path", "loss" ("cross_entropy" | "mse" | "output"), "input_dtype"
  // ("auto": int64 when the dataset has a vocabulary, else float32). InputError naming the field.
  static ExportedModelOptions from_json(const nlohmann::json& options, const DatasetInfo& data);
};

// The declared model_options of an exported model (for its ModelEntry).
std::vector<OptionSpec> exported_model_option_specs();

class ModelLoader {
 public:
  virtual ~ModelLoader() = default;
  // "TorchScript", for messages.
  virtual std::string format() const = 0;
  // Loads options.path and checks it against the dataset by running one forward on a 2-sample
  // batch; throws InputError naming model_options.path (missing file, not this format) or the
  // input/loss mismatch (naming the shapes and dataset_options).
  virtual std::unique_ptr<TrainableModel> load(const ExportedModelOptions& options, const DatasetInfo& data) const = 0;
};

// The loss of `kind` on (output, target); for ExportedLoss::output the output already is it.
// Mismatched shapes raise c10::Error with both shapes.
at::Tensor exported_loss(ExportedLoss kind, const at::Tensor& output, const at::Tensor& target);

// A batch of `n` samples shaped like the dataset's (zeros: valid token ids and class labels),
// and targets to match: class labels [n], next tokens [n, seq_len], or undefined when the
// dataset's targets are neither (regression: their shape is not in DatasetInfo).
at::Tensor example_input(const DatasetInfo& data, c10::ScalarType dtype, std::int64_t n);
at::Tensor example_target(const DatasetInfo& data, std::int64_t n);

// "[2, 3, 32, 32]"
std::string shape_text(at::IntArrayRef sizes);

}  // namespace tb
