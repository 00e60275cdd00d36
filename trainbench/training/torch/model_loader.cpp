#include <trainbench/training/torch/model_loader.hpp>

#include <sstream>

#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>

#include <trainbench/support/error.hpp>

namespace tb {

namespace {
std::string string_option(const nlohmann::json& options, const char* key, const char* fallback) {
  if (!options.contains(key)) return fallback;
  TB_CHECK_INPUT(options.at(key).is_string(), "matrix", std::string("model_options.") + key, "must be a string, got ",
                 excerpt(options.at(key)));
  return options.at(key).get<std::string>();
}
}  // namespace

ExportedModelOptions ExportedModelOptions::from_json(const nlohmann::json& options, const DatasetInfo& data) {
  ExportedModelOptions out;
  TB_CHECK_INPUT(options.contains("path"), "matrix", "model_options.path",
                 "required: the exported module file (scripts/export_model.py writes one)");
  out.path = string_option(options, "path", "");
  TB_CHECK_INPUT(!out.path.empty(), "matrix", "model_options.path", "must not be empty");
  const std::string loss = string_option(options, "loss", "cross_entropy");
  if (loss == "cross_entropy") {
    out.loss = ExportedLoss::cross_entropy;
  } else if (loss == "mse") {
    out.loss = ExportedLoss::mse;
  } else if (loss == "output") {
    out.loss = ExportedLoss::output;
  } else {
    throw InputError("matrix", "model_options.loss", "must be one of cross_entropy, mse, output, got \"" + loss + "\"");
  }
  const std::string dtype = string_option(options, "input_dtype", "auto");
  if (dtype == "auto") {
    out.input_dtype = data.vocab_size > 0 ? c10::kLong : c10::kFloat;
  } else if (dtype == "float32" || dtype == "int64") {
    out.input_dtype = dtype == "int64" ? c10::kLong : c10::kFloat;
  } else {
    throw InputError("matrix", "model_options.input_dtype",
                     "must be one of auto, float32, int64, got \"" + dtype + "\"");
  }
  return out;
}

std::vector<OptionSpec> exported_model_option_specs() {
  return {
      {"path",
       OptionType::path,
       {},
       {},
       {},
       nullptr,
       "the exported module file (required; scripts/export_model.py writes it)"},
      {"loss",
       OptionType::string_enum,
       {},
       {},
       {"cross_entropy", "mse", "output"},
       "cross_entropy",
       "cross_entropy on [N, classes] logits, mse against targets of the output's shape, or output: "
       "forward(input, target) returns the loss"},
      {"input_dtype",
       OptionType::string_enum,
       {},
       {},
       {"auto", "float32", "int64"},
       "auto",
       "dtype of the batches the module gets (auto: int64 token ids when the dataset has a "
       "vocabulary, else float32)"},
  };
}

std::string shape_text(at::IntArrayRef sizes) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << ']';
  return os.str();
}

at::Tensor exported_loss(ExportedLoss kind, const at::Tensor& output, const at::Tensor& target) {
  switch (kind) {
    case ExportedLoss::output:
      TORCH_CHECK(output.numel() == 1 && at::isFloatingType(output.scalar_type()),
                  "loss \"output\": forward(input, target) must return the loss, a floating scalar; it "
                  "returned ",
                  output.scalar_type(), " of shape ", shape_text(output.sizes()));
      return output.reshape({});
    case ExportedLoss::mse: {
      TORCH_CHECK(output.sizes() == target.sizes(),
                  "loss \"mse\" needs the output shaped like the targets: "
                  "output ",
                  shape_text(output.sizes()), ", targets ", shape_text(target.sizes()));
      return torch::nn::functional::mse_loss(output, target.to(output.scalar_type()));
    }
    case ExportedLoss::cross_entropy: break;
  }
  TORCH_CHECK(at::isFloatingType(output.scalar_type()) && output.dim() == target.dim() + 1 &&
                  output.sizes().slice(0, target.dim()) == target.sizes(),
              "loss \"cross_entropy\" needs logits [N, classes] for class targets [N] (or [N, T, vocab] for "
              "[N, T]): output ",
              shape_text(output.sizes()), ", targets ", shape_text(target.sizes()));
  // Classes last, as the models write them; cross_entropy wants them second: flatten the rest.
  return torch::nn::functional::cross_entropy(output.reshape({-1, output.size(-1)}), target.reshape({-1}));
}

at::Tensor example_input(const DatasetInfo& data, c10::ScalarType dtype, std::int64_t n) {
  std::vector<std::int64_t> shape = {n};
  shape.insert(shape.end(), data.input_shape.begin(), data.input_shape.end());
  return at::zeros(shape, at::TensorOptions().dtype(dtype));
}

at::Tensor example_target(const DatasetInfo& data, std::int64_t n) {
  if (data.vocab_size > 0 && data.seq_len > 0) return at::zeros({n, data.seq_len}, at::kLong);
  if (data.num_classes > 0) return at::zeros({n}, at::kLong);
  return {};
}

}  // namespace tb
