// "mlp": a multi-layer perceptron classifier (options: hidden, depth). The smallest model; the
// harness-overhead benchmark uses it.
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

class Mlp final : public TrainableModel {
 public:
  Mlp(const nlohmann::json& options, const DatasetInfo& data) {
    std::int64_t in = 1;
    for (auto d : data.input_shape) in *= d;
    const auto hidden = option_int(options, "model_options", "hidden", 1024);
    const auto depth = option_int(options, "model_options", "depth", 2);
    for (std::int64_t i = 0; i < depth; ++i) {
      net_->push_back(torch::nn::Linear(i == 0 ? in : hidden, hidden));
      net_->push_back(torch::nn::ReLU());
      layers_.push_back(capacity::LinearLayer{i == 0 ? in : hidden, hidden});
    }
    net_->push_back(torch::nn::Linear(depth > 0 ? hidden : in, data.num_classes));
    layers_.push_back(capacity::LinearLayer{depth > 0 ? hidden : in, data.num_classes});
    root_->register_module("net", net_);
  }
  torch::nn::Module& module() override { return *root_; }
  at::Tensor forward(const at::Tensor& input) override { return net_->forward(input.flatten(1)); }
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) override {
    return torch::nn::functional::cross_entropy(output, target);
  }
  std::vector<capacity::LayerSpec> layers_per_sample() const override { return layers_; }

 private:
  std::shared_ptr<torch::nn::Module> root_ = std::make_shared<torch::nn::Module>("Mlp");
  torch::nn::Sequential net_;
  std::vector<capacity::LayerSpec> layers_;
};

const ModelRegistrar kRegister({
    "mlp",
    "multi-layer perceptron classifier",
    "synthetic",
    {{"features", 512}, {"classes", 10}},
    [](const nlohmann::json& o, const DatasetInfo& d) { return std::make_unique<Mlp>(o, d); },
    {{"hidden", OptionType::integer, 1, 65536, {}, 1024, "width of every hidden layer"},
     {"depth", OptionType::integer, 1, 1024, {}, 2, "number of hidden Linear+ReLU layers"}},
});

}  // namespace
}  // namespace tb
