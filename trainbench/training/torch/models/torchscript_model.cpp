// "torchscript": a model defined in Python, exported with torch.jit.script or torch.jit.trace
// (scripts/export_model.py), trained from C++ like the built-in models: its parameters go to the
// optimizer, it runs in training mode, autocast and GradScaler wrap its forward. The loss and the
// input dtype come from model_options (trainbench/training/torch/model_loader.hpp).
//
// TorchScript is deprecated upstream, but in torch 2.11 it is the only way to train a
// Python-defined model from C++; it sits behind tb::ModelLoader so a future format can plug in.
//
// The graph executor is left as LibTorch sets it (the profiling executor, optimising after the
// first calls): tests/training/torch/test_torchscript_model.cpp checks gradients against eager
// PyTorch on the first and on later (optimised) calls, and that bf16 autocast reaches the ops
// inside the module on every call, so no executor setting is needed for correct training.
#include <filesystem>
#include <sstream>

#include <ATen/ATen.h>
#include <torch/script.h>
#include <torch/utils.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/model_loader.hpp>

namespace tb {
namespace {

namespace fs = std::filesystem;

// The last line of a LibTorch error that says what went wrong: errors raised inside a scripted
// module carry a TorchScript traceback first and the Python-style "RuntimeError: ..." last. The
// interpreter rethrows them as std::runtime_error, not c10::Error, hence std::exception here.
std::string short_reason(const std::exception& e) {
  const auto* error = dynamic_cast<const c10::Error*>(&e);
  std::istringstream lines(error ? error->what_without_backtrace() : e.what());
  std::string line, last, error_line;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    last = line;
    if (line.rfind("RuntimeError: ", 0) == 0) error_line = line.substr(14);
  }
  const std::string& reason = error_line.empty() ? last : error_line;
  return reason.size() > 300 ? reason.substr(0, 300) + "..." : reason;
}

std::string dtype_text(c10::ScalarType dtype) { return dtype == c10::kLong ? "int64" : "float32"; }

at::Tensor as_tensor(const c10::IValue& value) {
  TORCH_CHECK(value.isTensor(), "the module's forward must return one tensor; it returned a ", value.tagKind());
  return value.toTensor();
}

// The nn::Module the trainer sees: the scripted module's parameters and buffers registered under
// their dotted names with '.' as "__" (register_parameter refuses dots). They are the same
// tensors, so the optimizer updates the scripted module's weights, and Module::to(device), which
// moves tensors in place (set_data), moves the scripted module with them. train()/eval() reach
// the scripted module too.
class ScriptedModuleHolder final : public torch::nn::Module {
 public:
  explicit ScriptedModuleHolder(torch::jit::Module scripted)
      : torch::nn::Module("TorchScript"), scripted_(std::move(scripted)) {
    for (const auto& p : scripted_.named_parameters(/*recurse=*/true))
      register_parameter(flat_name(p.name), p.value, p.value.requires_grad());
    for (const auto& b : scripted_.named_buffers(/*recurse=*/true)) register_buffer(flat_name(b.name), b.value);
  }
  void train(bool on = true) override {
    torch::nn::Module::train(on);
    scripted_.train(on);
  }
  torch::jit::Module& scripted() { return scripted_; }

 private:
  static std::string flat_name(std::string name) {
    for (std::size_t at = name.find('.'); at != std::string::npos; at = name.find('.', at + 2))
      name.replace(at, 1, "__");
    return name;
  }
  torch::jit::Module scripted_;
};

class TorchScriptModel final : public TrainableModel {
 public:
  TorchScriptModel(torch::jit::Module scripted, const ExportedModelOptions& options, const DatasetInfo& data)
      : holder_(std::make_shared<ScriptedModuleHolder>(std::move(scripted))),
        loss_kind_(options.loss),
        tokens_per_sample_(data.vocab_size > 0 ? data.seq_len : 0) {
    holder_->train();
  }

  torch::nn::Module& module() override { return *holder_; }

  // With loss "output" the scripted forward needs the target too, which the trainer's
  // loss(forward(input), target) only hands to loss(): forward passes the input through and
  // loss() runs the module. Both run inside the trainer's autocast scope, so the module's ops
  // are autocast and timed as the forward phase either way.
  at::Tensor forward(const at::Tensor& input) override {
    if (loss_kind_ == ExportedLoss::output) return input;
    return as_tensor(holder_->scripted().forward({input}));
  }
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) override {
    if (loss_kind_ == ExportedLoss::output)
      return exported_loss(loss_kind_, as_tensor(holder_->scripted().forward({output, target})), target);
    return exported_loss(loss_kind_, output, target);
  }
  std::int64_t tokens_per_sample() const override { return tokens_per_sample_; }

 private:
  std::shared_ptr<ScriptedModuleHolder> holder_;
  ExportedLoss loss_kind_;
  std::int64_t tokens_per_sample_;
};

// Runs the model once on a 2-sample batch shaped like the dataset's and turns a refusal into an
// InputError. Training mode (as it will run) without autograd; the buffers it moves (batch-norm
// statistics) are put back, so the check leaves the model as loaded.
void check_against_dataset(TorchScriptModel& model, const ExportedModelOptions& options, const DatasetInfo& data) {
  constexpr std::int64_t kSamples = 2;
  const at::Tensor input = example_input(data, options.input_dtype, kSamples);
  const at::Tensor target = example_target(data, kSamples);
  if (options.loss == ExportedLoss::output && !target.defined()) return;  // regression targets: shape unknown
  std::vector<at::Tensor> buffers = model.module().buffers();
  std::vector<at::Tensor> saved;
  for (const auto& b : buffers) saved.push_back(b.clone());
  const torch::NoGradGuard no_grad;
  at::Tensor output;
  try {
    output = model.forward(input);
    if (options.loss == ExportedLoss::output) output = model.loss(output, target);  // checks it is a scalar
  } catch (const std::exception& e) {
    throw InputError("matrix", "model_options.path",
                     "the module's forward rejects a batch shaped like the dataset's samples (input " +
                         shape_text(input.sizes()) + " " + dtype_text(options.input_dtype) +
                         (options.loss == ExportedLoss::output ? ", target " + shape_text(target.sizes()) : "") +
                         ", from dataset_options; model_options.input_dtype sets the dtype): " + short_reason(e));
  }
  for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
  if (options.loss != ExportedLoss::cross_entropy || !target.defined()) return;  // mse: target shape unknown
  try {
    model.loss(output, target);
  } catch (const std::exception& e) { throw InputError("matrix", "model_options.loss", short_reason(e)); }
  const std::int64_t classes = data.vocab_size > 0 ? data.vocab_size : data.num_classes;
  if (output.size(-1) < classes)
    throw InputError("matrix", "model_options.loss",
                     "cross_entropy: the module returns " + std::to_string(output.size(-1)) +
                         " logits per sample, but the dataset has " + std::to_string(classes) +
                         (data.vocab_size > 0 ? " tokens in its vocabulary" : " classes"));
}

class TorchScriptLoader final : public ModelLoader {
 public:
  std::string format() const override { return "TorchScript"; }
  std::unique_ptr<TrainableModel> load(const ExportedModelOptions& options, const DatasetInfo& data) const override {
    std::error_code ec;
    TB_CHECK_INPUT(fs::is_regular_file(options.path, ec), "matrix", "model_options.path", "no such file '",
                   options.path, "'");
    torch::jit::Module scripted;
    try {
      scripted = torch::jit::load(options.path, c10::Device(c10::kCPU));  // the trainer moves it
    } catch (const std::exception& e) {
      throw InputError("matrix", "model_options.path",
                       "'" + options.path +
                           "' is not a TorchScript archive (write one with torch.jit.save "
                           "or scripts/export_model.py): " +
                           short_reason(e));
    }
    const auto forward = scripted.find_method("forward");
    TB_CHECK_INPUT(forward.has_value(), "matrix", "model_options.path", "'", options.path, "' has no forward method");
    const std::size_t arguments = forward->function().getSchema().arguments().size() - 1;  // less self
    const std::size_t wanted = options.loss == ExportedLoss::output ? 2 : 1;
    TB_CHECK_INPUT(arguments == wanted, "matrix", "model_options.loss",
                   options.loss == ExportedLoss::output
                       ? "output: the module's forward must take (input, target) and return the loss; "
                       : "the module's forward must take one input (loss \"output\" is for forward(input, target)); ",
                   "'", options.path, "' has forward with ", arguments, " argument(s)");
    auto model = std::make_unique<TorchScriptModel>(std::move(scripted), options, data);
    check_against_dataset(*model, options, data);
    return model;
  }
};

const ModelRegistrar kRegister({
    "torchscript",
    "your PyTorch model from Python, exported with torch.jit.script or trace (scripts/export_model.py)",
    "synthetic",
    {},
    [](const nlohmann::json& o, const DatasetInfo& d) {
      return TorchScriptLoader().load(ExportedModelOptions::from_json(o, d), d);
    },
    exported_model_option_specs(),
    {{"path",
      [](const nlohmann::json& given, const nlohmann::json&) -> std::string {
        if (!given.contains("path")) return "required: the TorchScript file (scripts/export_model.py writes one)";
        // Refused before anything runs, not once per scenario (relative to the current folder).
        const auto& path = given["path"];
        std::error_code ec;
        if (path.is_string() && !fs::is_regular_file(path.get<std::string>(), ec))
          return "no such file '" + path.get<std::string>() + "'";
        return "";
      }}},
    "",
});

}  // namespace
}  // namespace tb
