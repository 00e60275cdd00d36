// "resnet": a small residual CNN for images (stem + three stages of basic blocks + global pool),
// ResNet-style with batch norm. Options: width (stem channels, doubled per stage).
#include <torch/nn/functional/loss.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(k / 2).bias(false));
}

struct BasicBlockImpl : torch::nn::Module {
  BasicBlockImpl(std::int64_t in, std::int64_t out, std::int64_t stride)
      // In declaration order, which is the order the modules were always registered in (and so
      // the order of their parameters and of the random draws of their initialisation).
      : conv1(register_module("conv1", conv(in, out, 3, stride))),
        conv2(register_module("conv2", conv(out, out, 3, 1))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(out))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(out))) {
    if (stride != 1 || in != out) {
      down = register_module("down", conv(in, out, 1, stride));
      down_bn = register_module("down_bn", torch::nn::BatchNorm2d(out));
    }
  }
  at::Tensor forward(const at::Tensor& x) {
    auto y = bn1(conv1(x)).relu_();
    y = bn2(conv2(y));
    const auto shortcut = down ? down_bn(down(x)) : x;
    return (y + shortcut).relu_();
  }
  torch::nn::Conv2d conv1, conv2;
  torch::nn::BatchNorm2d bn1, bn2;
  torch::nn::Conv2d down{nullptr};
  torch::nn::BatchNorm2d down_bn{nullptr};
};
TORCH_MODULE(BasicBlock);

class ResNet final : public TrainableModel {
 public:
  ResNet(const nlohmann::json& options, const DatasetInfo& data) {
    TORCH_CHECK(data.input_shape.size() == 3, "resnet needs image inputs [C,H,W]");
    const auto channels = data.input_shape[0];
    std::int64_t h = data.input_shape[1], w = data.input_shape[2];
    const auto width = option_int(options, "model_options", "width", 32);
    stem_ = root_->register_module("stem", conv(channels, width, 3, 2));
    stem_bn_ = root_->register_module("stem_bn", torch::nn::BatchNorm2d(width));
    h = (h + 1) / 2, w = (w + 1) / 2;
    layers_.push_back(capacity::Conv2dLayer{channels, width, 3, 3, h, w});
    std::int64_t in = width;
    const std::int64_t stage_widths[3] = {width, width * 2, width * 4};
    for (int s = 0; s < 3; ++s) {
      const std::int64_t out = stage_widths[s], stride = s == 0 ? 1 : 2;
      const auto name = "block" + std::to_string(s);
      blocks_.push_back(root_->register_module(name, BasicBlock(in, out, stride)));
      h = (h + stride - 1) / stride, w = (w + stride - 1) / stride;
      layers_.push_back(capacity::Conv2dLayer{in, out, 3, 3, h, w});
      layers_.push_back(capacity::Conv2dLayer{out, out, 3, 3, h, w});
      if (stride != 1 || in != out) layers_.push_back(capacity::Conv2dLayer{in, out, 1, 1, h, w});
      in = out;
    }
    head_ = root_->register_module("head", torch::nn::Linear(in, data.num_classes));
    layers_.push_back(capacity::LinearLayer{in, data.num_classes});
  }
  torch::nn::Module& module() override { return *root_; }
  at::Tensor forward(const at::Tensor& input) override {
    auto x = stem_bn_(stem_(input)).relu_();
    for (auto& block : blocks_) x = block->forward(x);
    return head_(x.mean({2, 3}));
  }
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) override {
    return torch::nn::functional::cross_entropy(output, target);
  }
  std::vector<capacity::LayerSpec> layers_per_sample() const override { return layers_; }

 private:
  std::shared_ptr<torch::nn::Module> root_ = std::make_shared<torch::nn::Module>("ResNet");
  torch::nn::Conv2d stem_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  std::vector<BasicBlock> blocks_;
  torch::nn::Linear head_{nullptr};
  std::vector<capacity::LayerSpec> layers_;
};

const ModelRegistrar kRegister({
    "resnet",
    "small residual CNN (stem + 3 stages of basic blocks)",
    "images",
    {{"image_size", 64}},
    [](const nlohmann::json& o, const DatasetInfo& d) { return std::make_unique<ResNet>(o, d); },
    {{"width", OptionType::integer, 1, 4096, {}, 32, "stem channels, doubled at each of the 3 stages"}},
});

}  // namespace
}  // namespace tb
