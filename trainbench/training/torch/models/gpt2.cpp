// "gpt2": GPT-2 small (Radford et al. 2019, 124M) as Hugging Face's GPT2LMHeadModel builds it,
// name for name (transformer.wte, transformer.h.0.attn.c_attn, ...): 12 pre-norm blocks of width
// 768 with 12 heads, learned positions for a context of 1024, LayerNorm eps 1e-5, GELU with the
// tanh approximation, dropout 0.1, and Conv1D projections (weight [in, out] plus a bias). The LM
// head is the token embedding itself (tied): the weight is registered once, so the optimizer
// updates it once. The vocabulary is always 50257; a sequence may be shorter than the context.
#include <cmath>

#include <ATen/ATen.h>
#include <torch/nn/functional/dropout.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

constexpr std::int64_t kLayers = 12, kHeads = 12, kWidth = 768, kVocab = 50257, kContext = 1024;
constexpr double kLayerNormEps = 1e-5;
constexpr double kInitStd = 0.02;  // GPT2Config.initializer_range

torch::nn::LayerNorm layer_norm() {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({kWidth}).eps(kLayerNormEps));
}

// Hugging Face's Conv1D: a linear layer whose weight is stored transposed, [in, out].
struct Conv1DImpl : torch::nn::Module {
  Conv1DImpl(std::int64_t in, std::int64_t out)
      : weight(register_parameter("weight", at::empty({in, out}))), bias(register_parameter("bias", at::zeros({out}))) {
    torch::NoGradGuard no_grad;
    weight.normal_(0.0, kInitStd);
  }
  at::Tensor forward(const at::Tensor& x) {
    auto sizes = x.sizes().vec();
    sizes.back() = weight.size(1);
    return at::addmm(bias, x.reshape({-1, x.size(-1)}), weight).view(sizes);
  }
  at::Tensor weight, bias;
};
TORCH_MODULE(Conv1D);

struct AttentionImpl : torch::nn::Module {
  explicit AttentionImpl(double dropout)
      : dropout(dropout),
        c_attn(register_module("c_attn", Conv1D(kWidth, 3 * kWidth))),
        c_proj(register_module("c_proj", Conv1D(kWidth, kWidth))) {}
  at::Tensor forward(const at::Tensor& x) {
    const auto b = x.size(0), t = x.size(1);
    // c_attn's output is [q | k | v], each split into heads.
    const auto qkv = c_attn(x).view({b, t, 3, kHeads, kWidth / kHeads}).permute({2, 0, 3, 1, 4});
    const auto y =
        at::scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], {}, is_training() ? dropout : 0.0, /*is_causal=*/true);
    return c_proj(y.transpose(1, 2).reshape({b, t, kWidth}));
  }
  double dropout;
  Conv1D c_attn, c_proj;
};
TORCH_MODULE(Attention);

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : c_fc(register_module("c_fc", Conv1D(kWidth, 4 * kWidth))),
        c_proj(register_module("c_proj", Conv1D(4 * kWidth, kWidth))) {}
  at::Tensor forward(const at::Tensor& x) { return c_proj(at::gelu(c_fc(x), "tanh")); }
  Conv1D c_fc, c_proj;
};
TORCH_MODULE(Mlp);

struct BlockImpl : torch::nn::Module {
  explicit BlockImpl(double dropout)
      : dropout(dropout),
        ln_1(register_module("ln_1", layer_norm())),
        attn(register_module("attn", Attention(dropout))),
        ln_2(register_module("ln_2", layer_norm())),
        mlp(register_module("mlp", Mlp())) {}
  at::Tensor forward(const at::Tensor& x) {
    namespace F = torch::nn::functional;
    const auto drop = F::DropoutFuncOptions().p(dropout).training(is_training());
    auto y = x + F::dropout(attn(ln_1(x)), drop);
    return y + F::dropout(mlp(ln_2(y)), drop);
  }
  double dropout;
  torch::nn::LayerNorm ln_1;
  Attention attn;
  torch::nn::LayerNorm ln_2;
  Mlp mlp;
};
TORCH_MODULE(Block);

// GPT2Model: embeddings, the blocks, the final LayerNorm.
struct TransformerImpl : torch::nn::Module {
  explicit TransformerImpl(double dropout)
      : dropout(dropout),
        wte(register_module("wte", torch::nn::Embedding(kVocab, kWidth))),
        wpe(register_module("wpe", torch::nn::Embedding(kContext, kWidth))),
        h(register_module("h", torch::nn::ModuleList())),
        ln_f(register_module("ln_f", layer_norm())) {
    for (std::int64_t i = 0; i < kLayers; ++i) h->push_back(Block(dropout));
  }
  at::Tensor forward(const at::Tensor& tokens) {
    namespace F = torch::nn::functional;
    const auto positions = at::arange(tokens.size(1), tokens.options());
    auto x = F::dropout(wte(tokens) + wpe(positions), F::DropoutFuncOptions().p(dropout).training(is_training()));
    for (const auto& block : *h) x = block->as<Block>()->forward(x);
    return ln_f(x);
  }
  double dropout;
  torch::nn::Embedding wte, wpe;
  torch::nn::ModuleList h;
  torch::nn::LayerNorm ln_f;
};
TORCH_MODULE(Transformer);

class Gpt2 final : public TrainableModel {
 public:
  Gpt2(const nlohmann::json& options, const DatasetInfo& data) : seq_len_(data.seq_len) {
    TB_CHECK_INPUT(seq_len_ > 0 && data.vocab_size > 0, "matrix", "dataset",
                   "gpt2 needs a token dataset (seq_len, vocab)");
    TB_CHECK_INPUT(seq_len_ <= kContext, "matrix", "dataset_options.seq_len", "gpt2's context is ", kContext,
                   " tokens, got ", seq_len_);
    TB_CHECK_INPUT(data.vocab_size <= kVocab, "matrix", "dataset_options.vocab", "gpt2's vocabulary is ", kVocab,
                   " tokens, the dataset has ", data.vocab_size);
    double dropout = 0.1;
    if (options.contains("dropout")) dropout = options.at("dropout").get<double>();
    transformer_ = root_->register_module("transformer", Transformer(dropout));
    initialise();
    for (std::int64_t i = 0; i < kLayers; ++i) {
      layers_.push_back(capacity::LinearLayer{kWidth, 3 * kWidth, seq_len_});
      layers_.push_back(capacity::AttentionLayer{seq_len_, kWidth, kHeads, true});
      layers_.push_back(capacity::LinearLayer{kWidth, kWidth, seq_len_});
      layers_.push_back(capacity::LinearLayer{kWidth, 4 * kWidth, seq_len_});
      layers_.push_back(capacity::LinearLayer{4 * kWidth, kWidth, seq_len_});
    }
    layers_.push_back(capacity::EmbeddingLayer{kVocab, kWidth, seq_len_});
    layers_.push_back(capacity::EmbeddingLayer{kContext, kWidth, seq_len_});
    layers_.push_back(capacity::LinearLayer{kWidth, kVocab, seq_len_});  // the tied LM head
  }
  torch::nn::Module& module() override { return *root_; }
  at::Tensor forward(const at::Tensor& tokens) override {
    // The LM head reads the token embedding's weight: one parameter, two uses.
    return torch::nn::functional::linear(transformer_->forward(tokens), transformer_->wte->weight);
  }
  at::Tensor loss(const at::Tensor& logits, const at::Tensor& target) override {
    return torch::nn::functional::cross_entropy(logits.reshape({-1, kVocab}), target.reshape({-1}));
  }
  std::vector<capacity::LayerSpec> layers_per_sample() const override { return layers_; }
  std::int64_t tokens_per_sample() const override { return seq_len_; }

 private:
  // GPT2PreTrainedModel._init_weights: N(0, 0.02) embeddings and projections (Conv1D does its
  // own), and the residual projections (c_proj) scaled down by sqrt(2 * n_layer).
  void initialise() {
    torch::NoGradGuard no_grad;
    transformer_->wte->weight.normal_(0.0, kInitStd);
    transformer_->wpe->weight.normal_(0.0, kInitStd);
    for (auto& item : root_->named_parameters())
      if (item.key().ends_with("c_proj.weight")) item.value().normal_(0.0, kInitStd / std::sqrt(2.0 * kLayers));
  }

  std::int64_t seq_len_;
  std::shared_ptr<torch::nn::Module> root_ = std::make_shared<torch::nn::Module>("GPT2LMHeadModel");
  Transformer transformer_{nullptr};
  std::vector<capacity::LayerSpec> layers_;
};

const ModelRegistrar kRegister({
    "gpt2",
    "GPT-2 small (124M; Hugging Face's GPT2LMHeadModel), context 1024, tied embeddings",
    "tokens",
    {{"seq_len", kContext}, {"vocab", kVocab}},
    [](const nlohmann::json& o, const DatasetInfo& d) { return std::make_unique<Gpt2>(o, d); },
    {{"dropout",
      OptionType::number,
      0,
      0.99,
      {},
      0.1,
      "dropout of embeddings, attention and residuals (GPT2Config's 0.1; 0 turns it off)"}},
    {},
    "GPT-2 small (Radford et al. 2019) as transformers' GPT2LMHeadModel; 124,439,808 parameters "
    "(tied embeddings); forward 2N + 2*n_layer*n_ctx*d_model FLOPs per token (Kaplan et al. 2020) "
    "plus the LM head",
});

}  // namespace
}  // namespace tb
