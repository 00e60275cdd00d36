// "vit_b_16": torchvision's ViT-B/16 (Dosovitskiy et al. 2020), name for name (class_token,
// conv_proj, encoder.pos_embedding, encoder.layers.encoder_layer_0.self_attention.in_proj_weight,
// ..., heads.head): 16x16 patches, width 768, 12 pre-norm layers of 12 heads, MLP 3072 with exact
// GELU, LayerNorm eps 1e-6, a class token read by a linear head of 1000 classes. Option: dropout
// (torchvision's argument of that name, default 0: after the positions, attention and MLP).
// The position table has one row per patch plus the class token, so the parameter count is the
// reference's (86,567,656) at 224x224; any side divisible by 16 works.
#include <cmath>

#include <ATen/ATen.h>
#include <torch/nn/functional/dropout.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

constexpr std::int64_t kPatch = 16, kWidth = 768, kLayers = 12, kHeads = 12, kMlp = 3072;
constexpr std::int64_t kClasses = 1000;
constexpr double kLayerNormEps = 1e-6;

torch::nn::LayerNorm layer_norm() {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({kWidth}).eps(kLayerNormEps));
}

// nn.MultiheadAttention's parameters: one packed [q; k; v] projection and out_proj.
struct SelfAttentionImpl : torch::nn::Module {
  SelfAttentionImpl()
      : in_proj_weight(register_parameter("in_proj_weight", at::empty({3 * kWidth, kWidth}))),
        in_proj_bias(register_parameter("in_proj_bias", at::zeros({3 * kWidth}))),
        out_proj(register_module("out_proj", torch::nn::Linear(kWidth, kWidth))) {
    torch::NoGradGuard no_grad;
    torch::nn::init::xavier_uniform_(in_proj_weight);
    torch::nn::init::zeros_(out_proj->bias);
  }
  at::Tensor forward(const at::Tensor& x) {
    const auto b = x.size(0), t = x.size(1);
    const auto qkv = torch::nn::functional::linear(x, in_proj_weight, in_proj_bias)
                         .view({b, t, 3, kHeads, kWidth / kHeads})
                         .permute({2, 0, 3, 1, 4});
    const auto y = at::scaled_dot_product_attention(qkv[0], qkv[1], qkv[2]);
    return out_proj(y.transpose(1, 2).reshape({b, t, kWidth}));
  }
  at::Tensor in_proj_weight, in_proj_bias;
  torch::nn::Linear out_proj;
};
TORCH_MODULE(SelfAttention);

// torchvision's MLPBlock: Linear, GELU, Dropout, Linear, Dropout (so the linears are mlp.0, mlp.3).
torch::nn::Sequential mlp_block(double dropout) {
  torch::nn::Sequential mlp(torch::nn::Linear(kWidth, kMlp), torch::nn::GELU(), torch::nn::Dropout(dropout),
                            torch::nn::Linear(kMlp, kWidth), torch::nn::Dropout(dropout));
  torch::NoGradGuard no_grad;
  for (const std::size_t i : {0u, 3u}) {
    auto* linear = mlp[i]->as<torch::nn::Linear>();
    torch::nn::init::xavier_uniform_(linear->weight);
    linear->bias.normal_(0.0, 1e-6);
  }
  return mlp;
}

struct EncoderLayerImpl : torch::nn::Module {
  explicit EncoderLayerImpl(double dropout)
      : dropout(dropout),
        ln_1(register_module("ln_1", layer_norm())),
        self_attention(register_module("self_attention", SelfAttention())),
        ln_2(register_module("ln_2", layer_norm())),
        mlp(register_module("mlp", mlp_block(dropout))) {}
  at::Tensor forward(const at::Tensor& x) {
    namespace F = torch::nn::functional;
    const auto y = x + F::dropout(self_attention(ln_1(x)), F::DropoutFuncOptions().p(dropout).training(is_training()));
    return y + mlp->forward(ln_2(y));
  }
  double dropout;
  torch::nn::LayerNorm ln_1;
  SelfAttention self_attention;
  torch::nn::LayerNorm ln_2;
  torch::nn::Sequential mlp;
};
TORCH_MODULE(EncoderLayer);

class VitB16 final : public TrainableModel {
 public:
  VitB16(const nlohmann::json& options, const DatasetInfo& data) : dropout_(options.value("dropout", 0.0)) {
    TB_CHECK_INPUT(data.input_shape.size() == 3 && data.input_shape[0] == 3 &&
                       data.input_shape[1] == data.input_shape[2] && data.input_shape[1] % kPatch == 0,
                   "matrix", "dataset", "vit_b_16 needs square RGB images [3, H, H], H a multiple of 16");
    TB_CHECK_INPUT(data.num_classes <= kClasses, "matrix", "dataset_options.classes",
                   "vit_b_16 has 1000 classes, the dataset has ", data.num_classes);
    const std::int64_t side = data.input_shape[1] / kPatch, tokens = side * side + 1;
    class_token_ = root_->register_parameter("class_token", at::zeros({1, 1, kWidth}));
    conv_proj_ = root_->register_module("conv_proj",
                                        torch::nn::Conv2d(torch::nn::Conv2dOptions(3, kWidth, kPatch).stride(kPatch)));
    encoder_ = root_->register_module("encoder", std::make_shared<torch::nn::Module>("Encoder"));
    pos_embedding_ = encoder_->register_parameter("pos_embedding", at::empty({1, tokens, kWidth}));
    auto layers = encoder_->register_module("layers", std::make_shared<torch::nn::Module>("Layers"));
    for (std::int64_t i = 0; i < kLayers; ++i)
      layers_.push_back(layers->register_module("encoder_layer_" + std::to_string(i), EncoderLayer(dropout_)));
    ln_ = encoder_->register_module("ln", layer_norm());
    auto heads = root_->register_module("heads", std::make_shared<torch::nn::Module>("Heads"));
    head_ = heads->register_module("head", torch::nn::Linear(kWidth, kClasses));
    initialise();

    flops_.push_back(capacity::Conv2dLayer{3, kWidth, kPatch, kPatch, side, side});
    for (std::int64_t i = 0; i < kLayers; ++i) {
      flops_.push_back(capacity::LinearLayer{kWidth, 3 * kWidth, tokens});
      flops_.push_back(capacity::AttentionLayer{tokens, kWidth, kHeads, false});
      flops_.push_back(capacity::LinearLayer{kWidth, kWidth, tokens});
      flops_.push_back(capacity::LinearLayer{kWidth, kMlp, tokens});
      flops_.push_back(capacity::LinearLayer{kMlp, kWidth, tokens});
    }
    flops_.push_back(capacity::LinearLayer{kWidth, kClasses});  // the class token only
  }
  torch::nn::Module& module() override { return *root_; }
  at::Tensor forward(const at::Tensor& images) override {
    const auto b = images.size(0);
    auto x = conv_proj_(images).flatten(2).transpose(1, 2);  // [B, patches, width]
    namespace F = torch::nn::functional;
    x = F::dropout(at::cat({class_token_.expand({b, -1, -1}), x}, 1) + pos_embedding_,
                   F::DropoutFuncOptions().p(dropout_).training(root_->is_training()));
    for (auto& layer : layers_) x = layer->forward(x);
    return head_(ln_(x).select(1, 0));
  }
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) override {
    return torch::nn::functional::cross_entropy(output, target);
  }
  std::vector<capacity::LayerSpec> layers_per_sample() const override { return flops_; }

 private:
  // torchvision's VisionTransformer.__init__: a normal patch projection of std sqrt(1/fan_in)
  // (torchvision truncates it at +-2, which at std 0.036 cuts nothing), N(0, 0.02) positions, a
  // zero head; the blocks initialise themselves.
  void initialise() {
    torch::NoGradGuard no_grad;
    conv_proj_->weight.normal_(0.0, std::sqrt(1.0 / (3.0 * kPatch * kPatch)));
    torch::nn::init::zeros_(conv_proj_->bias);
    pos_embedding_.normal_(0.0, 0.02);
    torch::nn::init::zeros_(head_->weight);
    torch::nn::init::zeros_(head_->bias);
  }

  double dropout_;
  std::shared_ptr<torch::nn::Module> root_ = std::make_shared<torch::nn::Module>("VisionTransformer");
  at::Tensor class_token_, pos_embedding_;
  torch::nn::Conv2d conv_proj_{nullptr};
  std::shared_ptr<torch::nn::Module> encoder_;
  std::vector<EncoderLayer> layers_;
  torch::nn::LayerNorm ln_{nullptr};
  torch::nn::Linear head_{nullptr};
  std::vector<capacity::LayerSpec> flops_;
};

const ModelRegistrar kRegister({
    "vit_b_16",
    "ViT-B/16 (torchvision's), 224x224 in 16x16 patches, 1000 classes",
    "synthetic",
    {{"shape", {3, 224, 224}}, {"classes", kClasses}, {"samples", 512}},
    [](const nlohmann::json& o, const DatasetInfo& d) { return std::make_unique<VitB16>(o, d); },
    {{"dropout",
      OptionType::number,
      0,
      0.99,
      {},
      0.0,
      "dropout after the positions, attention and MLP (torchvision's option; 0 as its default)"}},
    {},
    "torchvision.models.vit_b_16 (Dosovitskiy et al. 2020); 86,567,656 parameters; "
    "~17.6 GMACs (35.1 GFLOPs) forward at 224x224",
});

}  // namespace
}  // namespace tb
