// "resnet50": torchvision's ResNet-50 (He et al. 2015, "v1.5": the stride of a downsampling
// bottleneck sits on its 3x3 conv), layer for layer and name for name (conv1, bn1, layer1.0.conv1,
// ..., layer1.0.downsample.0, ..., fc), so its parameters line up with torchvision's state dict.
// Always 3 input channels and 1000 classes, as the reference: a dataset with fewer classes uses
// the first ones, any input side works (adaptive pooling), FLOPs follow the input size.
// Option: zero_init_residual, as torchvision's argument of that name.
#include <torch/nn/functional/loss.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/pooling.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

constexpr std::int64_t kInputChannels = 3;
constexpr std::int64_t kClasses = 1000;
constexpr std::int64_t kExpansion = 4;  // a bottleneck's output is 4x its width

// Output side of a convolution or pooling window.
std::int64_t out_side(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  return (in + 2 * padding - kernel) / stride + 1;
}

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(k / 2).bias(false));
}

// Adds a conv's matmul work at its output size to `layers` and returns that size.
std::int64_t count_conv(std::vector<capacity::LayerSpec>& layers, std::int64_t in, std::int64_t out, std::int64_t k,
                        std::int64_t stride, std::int64_t side) {
  const auto o = out_side(side, k, stride, k / 2);
  layers.push_back(capacity::Conv2dLayer{in, out, k, k, o, o});
  return o;
}

struct BottleneckImpl : torch::nn::Module {
  // `side`: the block's input side; the block's layers are appended to `layers`.
  BottleneckImpl(std::int64_t in, std::int64_t width, std::int64_t stride, std::int64_t& side,
                 std::vector<capacity::LayerSpec>& layers)
      : conv1(register_module("conv1", conv(in, width, 1, 1))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(width))),
        conv2(register_module("conv2", conv(width, width, 3, stride))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(width))),
        conv3(register_module("conv3", conv(width, width * kExpansion, 1, 1))),
        bn3(register_module("bn3", torch::nn::BatchNorm2d(width * kExpansion))) {
    const auto input_side = side;
    count_conv(layers, in, width, 1, 1, side);
    side = count_conv(layers, width, width, 3, stride, side);
    count_conv(layers, width, width * kExpansion, 1, 1, side);
    if (stride != 1 || in != width * kExpansion) {
      downsample = register_module("downsample", torch::nn::Sequential(conv(in, width * kExpansion, 1, stride),
                                                                       torch::nn::BatchNorm2d(width * kExpansion)));
      count_conv(layers, in, width * kExpansion, 1, stride, input_side);
    }
  }
  at::Tensor forward(const at::Tensor& x) {
    auto y = bn1(conv1(x)).relu_();
    y = bn2(conv2(y)).relu_();
    y = bn3(conv3(y));
    return (y + (downsample ? downsample->forward(x) : x)).relu_();
  }
  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::BatchNorm2d bn2;
  torch::nn::Conv2d conv3;
  torch::nn::BatchNorm2d bn3;
  torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

class ResNet50 final : public TrainableModel {
 public:
  ResNet50(const nlohmann::json& options, const DatasetInfo& data) {
    TB_CHECK_INPUT(data.input_shape.size() == 3 && data.input_shape[0] == kInputChannels &&
                       data.input_shape[1] == data.input_shape[2],
                   "matrix", "dataset", "resnet50 needs square RGB images [3, H, H]");
    TB_CHECK_INPUT(data.num_classes <= kClasses, "matrix", "dataset_options.classes",
                   "resnet50 has 1000 classes, the dataset has ", data.num_classes);
    std::int64_t side = data.input_shape[1];
    TB_CHECK_INPUT(side >= 32, "matrix", "dataset", "resnet50 needs images of at least 32x32, got ", side, "x", side);
    conv1_ = root_->register_module("conv1", conv(kInputChannels, 64, 7, 2));
    side = count_conv(layers_, kInputChannels, 64, 7, 2, side);
    bn1_ = root_->register_module("bn1", torch::nn::BatchNorm2d(64));
    maxpool_ =
        root_->register_module("maxpool", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(3).stride(2).padding(1)));
    side = out_side(side, 3, 2, 1);
    const std::int64_t blocks[4] = {3, 4, 6, 3}, widths[4] = {64, 128, 256, 512};
    std::int64_t in = 64;
    for (int s = 0; s < 4; ++s) {
      torch::nn::Sequential stage;
      for (std::int64_t b = 0; b < blocks[s]; ++b) {
        const std::int64_t stride = s > 0 && b == 0 ? 2 : 1;
        stage->push_back(Bottleneck(in, widths[s], stride, side, layers_));
        in = widths[s] * kExpansion;
      }
      stages_.push_back(root_->register_module("layer" + std::to_string(s + 1), stage));
    }
    fc_ = root_->register_module("fc", torch::nn::Linear(in, kClasses));
    layers_.push_back(capacity::LinearLayer{in, kClasses});
    initialise(options.value("zero_init_residual", false));
  }
  torch::nn::Module& module() override { return *root_; }
  at::Tensor forward(const at::Tensor& input) override {
    auto x = maxpool_(bn1_(conv1_(input)).relu_());
    for (auto& stage : stages_) x = stage->forward(x);
    return fc_(x.mean({2, 3}));
  }
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) override {
    return torch::nn::functional::cross_entropy(output, target);
  }
  std::vector<capacity::LayerSpec> layers_per_sample() const override { return layers_; }

 private:
  // torchvision's initialisation: He-normal (fan_out) convolutions, unit batch-norm scales; with
  // zero_init_residual, each bottleneck's last batch norm starts at zero (the block an identity).
  void initialise(bool zero_init_residual) {
    torch::NoGradGuard no_grad;
    for (auto& m : root_->modules(/*include_self=*/false)) {
      if (auto* c = m->as<torch::nn::Conv2d>()) {
        torch::nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
      } else if (auto* bn = m->as<torch::nn::BatchNorm2d>()) {
        torch::nn::init::ones_(bn->weight);
        torch::nn::init::zeros_(bn->bias);
      }
    }
    if (!zero_init_residual) return;
    for (auto& stage : stages_)
      for (auto& block : *stage) torch::nn::init::zeros_(block.ptr()->as<Bottleneck>()->bn3->weight);
  }

  std::shared_ptr<torch::nn::Module> root_ = std::make_shared<torch::nn::Module>("ResNet");
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::MaxPool2d maxpool_{nullptr};
  std::vector<torch::nn::Sequential> stages_;
  torch::nn::Linear fc_{nullptr};
  std::vector<capacity::LayerSpec> layers_;
};

const ModelRegistrar kRegister({
    "resnet50",
    "ResNet-50 (torchvision's, v1.5 bottlenecks), 1000 classes",
    "synthetic",
    // 512 images of 224x224 are 308 MB in memory; a GPU cycles through them.
    {{"shape", {3, 224, 224}}, {"classes", kClasses}, {"samples", 512}},
    [](const nlohmann::json& o, const DatasetInfo& d) { return std::make_unique<ResNet50>(o, d); },
    {{"zero_init_residual",
      OptionType::boolean,
      {},
      {},
      {},
      false,
      "start each bottleneck's last batch-norm scale at zero (torchvision's option of that name)"}},
    {},
    "torchvision.models.resnet50 (He et al. 2015, v1.5); 25,557,032 parameters; "
    "~4.1 GMACs (8.18 GFLOPs) forward at 224x224",
});

}  // namespace
}  // namespace tb
