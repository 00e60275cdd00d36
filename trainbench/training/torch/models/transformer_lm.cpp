// "transformer": a small GPT-style decoder-only language model (pre-norm blocks, causal
// scaled-dot-product attention, GELU MLP). Options: d_model, heads, layers, ff.
#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

struct BlockImpl : torch::nn::Module {
  BlockImpl(std::int64_t d_model, std::int64_t heads, std::int64_t ff)
      : heads(heads),
        ln1(register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})))),
        qkv(register_module("qkv", torch::nn::Linear(d_model, 3 * d_model))),
        proj(register_module("proj", torch::nn::Linear(d_model, d_model))),
        ln2(register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})))),
        fc1(register_module("fc1", torch::nn::Linear(d_model, ff))),
        fc2(register_module("fc2", torch::nn::Linear(ff, d_model))) {}

  at::Tensor forward(const at::Tensor& x) {
    const auto b = x.size(0), t = x.size(1), d = x.size(2);
    auto qkv_out = qkv(ln1(x)).view({b, t, 3, heads, d / heads}).permute({2, 0, 3, 1, 4});
    auto attn = at::scaled_dot_product_attention(qkv_out[0], qkv_out[1], qkv_out[2], {}, 0.0,
                                                 /*is_causal=*/true);
    auto y = x + proj(attn.transpose(1, 2).reshape({b, t, d}));
    return y + fc2(at::gelu(fc1(ln2(y))));
  }

  std::int64_t heads;
  torch::nn::LayerNorm ln1;
  torch::nn::Linear qkv, proj;
  torch::nn::LayerNorm ln2;
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Block);

class TransformerLm final : public TrainableModel {
 public:
  TransformerLm(const nlohmann::json& options, const DatasetInfo& data)
      : seq_len_(data.seq_len), vocab_(data.vocab_size) {
    TORCH_CHECK(seq_len_ > 0 && vocab_ > 0, "transformer needs a token dataset (seq_len, vocab)");
    const auto d = option_int(options, "model_options", "d_model", 128);
    const auto heads = option_int(options, "model_options", "heads", 4);
    const auto layers = option_int(options, "model_options", "layers", 2);
    const auto ff = option_int(options, "model_options", "ff", 4 * d);
    TORCH_CHECK(d % heads == 0, "model_options.d_model must be divisible by model_options.heads");
    tok_ = root_->register_module("tok", torch::nn::Embedding(vocab_, d));
    pos_ = root_->register_module("pos", torch::nn::Embedding(seq_len_, d));
    for (std::int64_t i = 0; i < layers; ++i) {
      blocks_.push_back(root_->register_module("block" + std::to_string(i), Block(d, heads, ff)));
      layers_.push_back(capacity::LinearLayer{d, 3 * d, seq_len_});
      layers_.push_back(capacity::AttentionLayer{seq_len_, d, heads, true});
      layers_.push_back(capacity::LinearLayer{d, d, seq_len_});
      layers_.push_back(capacity::LinearLayer{d, ff, seq_len_});
      layers_.push_back(capacity::LinearLayer{ff, d, seq_len_});
    }
    ln_f_ = root_->register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
    head_ = root_->register_module("head", torch::nn::Linear(d, vocab_));
    layers_.push_back(capacity::LinearLayer{d, vocab_, seq_len_});
  }
  torch::nn::Module& module() override { return *root_; }
  at::Tensor forward(const at::Tensor& tokens) override {
    const auto positions = at::arange(tokens.size(1), tokens.options());
    auto x = tok_(tokens) + pos_(positions);
    for (auto& block : blocks_) x = block->forward(x);
    return head_(ln_f_(x));
  }
  at::Tensor loss(const at::Tensor& logits, const at::Tensor& target) override {
    return torch::nn::functional::cross_entropy(logits.reshape({-1, vocab_}), target.reshape({-1}));
  }
  std::vector<capacity::LayerSpec> layers_per_sample() const override { return layers_; }
  std::int64_t tokens_per_sample() const override { return seq_len_; }

 private:
  std::int64_t seq_len_, vocab_;
  std::shared_ptr<torch::nn::Module> root_ = std::make_shared<torch::nn::Module>("TransformerLm");
  torch::nn::Embedding tok_{nullptr}, pos_{nullptr};
  std::vector<Block> blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
  torch::nn::Linear head_{nullptr};
  std::vector<capacity::LayerSpec> layers_;
};

const ModelRegistrar kRegister({
    "transformer",
    "GPT-style decoder-only LM",
    "tokens",
    {{"seq_len", 64}, {"vocab", 256}},
    [](const nlohmann::json& o, const DatasetInfo& d) { return std::make_unique<TransformerLm>(o, d); },
    {{"d_model", OptionType::integer, 1, 65536, {}, 128, "embedding width (divisible by heads)"},
     {"heads", OptionType::integer, 1, 1024, {}, 4, "attention heads per block"},
     {"layers", OptionType::integer, 1, 1024, {}, 2, "decoder blocks"},
     {"ff", OptionType::integer, 1, 262144, {}, nullptr, "MLP width in each block (default 4*d_model)"}},
    {{"d_model",
      [](const nlohmann::json&, const nlohmann::json& o) -> std::string {
        const auto d = o.at("d_model").get<std::int64_t>(), heads = o.at("heads").get<std::int64_t>();
        if (d % heads == 0) return "";
        return "must be divisible by model_options.heads, got d_model " + std::to_string(d) + " and heads " +
               std::to_string(heads);
      }}},
});

}  // namespace
}  // namespace tb
