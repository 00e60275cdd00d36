// The user's own model, "tiny_linear": one Linear layer, registered from its own file exactly as
// trainbench's built-in models are (trainbench/training/torch/registry.hpp).
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/linear.h>

#include <trainbench/training/torch/registry.hpp>

namespace {

class TinyLinear final : public tb::TrainableModel {
 public:
  TinyLinear(const nlohmann::json& options, const tb::DatasetInfo& data) {
    std::int64_t in = 1;
    for (auto d : data.input_shape) in *= d;
    const auto scale = tb::option_int(options, "model_options", "scale", 1);
    linear_ = torch::nn::Linear(in, data.num_classes * scale);
    root_->register_module("linear", linear_);
    layers_.push_back(tb::capacity::LinearLayer{in, data.num_classes * scale});
  }
  torch::nn::Module& module() override { return *root_; }
  at::Tensor forward(const at::Tensor& input) override { return linear_->forward(input.flatten(1)); }
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) override {
    return torch::nn::functional::cross_entropy(output, target);
  }
  std::vector<tb::capacity::LayerSpec> layers_per_sample() const override { return layers_; }

 private:
  std::shared_ptr<torch::nn::Module> root_ = std::make_shared<torch::nn::Module>("TinyLinear");
  torch::nn::Linear linear_{nullptr};
  std::vector<tb::capacity::LayerSpec> layers_;
};

const tb::ModelRegistrar kRegister({
    "tiny_linear",
    "a user's model: one Linear layer",
    "synthetic",
    {{"features", 16}, {"classes", 4}},
    [](const nlohmann::json& o, const tb::DatasetInfo& d) { return std::make_unique<TinyLinear>(o, d); },
    {{"scale", tb::OptionType::integer, 1, 1, {}, 1, "output width multiplier (only 1 makes sense)"}},
});

}  // namespace
