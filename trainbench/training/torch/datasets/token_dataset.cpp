// "tokens": next-token prediction windows over a token stream drawn from a sparse Markov chain
// (each token has a few likely successors), so a language model has something to learn.
#include <random>

#include <ATen/ATen.h>

#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

class TokenSource final : public SampleSource {
 public:
  explicit TokenSource(const DatasetRequest& req) {
    const auto samples = option_int(req.options, "dataset_options", "samples", 4096);
    info_.seq_len = option_int(req.options, "dataset_options", "seq_len", 64);
    info_.vocab_size = option_int(req.options, "dataset_options", "vocab", 256);
    info_.input_shape = {info_.seq_len};
    samples_ = samples;
    const std::int64_t length = samples * info_.seq_len + 1;
    std::mt19937_64 rng(req.seed);
    constexpr int kSuccessors = 4;
    std::vector<std::int64_t> successors(info_.vocab_size * kSuccessors);
    std::uniform_int_distribution<std::int64_t> any(0, info_.vocab_size - 1);
    for (auto& s : successors) s = any(rng);
    std::uniform_int_distribution<int> pick(0, kSuccessors - 1);
    std::bernoulli_distribution noise(0.1);
    stream_ = at::empty({length}, at::kLong);
    auto* data = stream_.data_ptr<std::int64_t>();
    data[0] = any(rng);
    for (std::int64_t i = 1; i < length; ++i)
      data[i] = noise(rng) ? any(rng) : successors[data[i - 1] * kSuccessors + pick(rng)];
  }

  torch::data::Example<> get(std::size_t index) override {
    const auto start = static_cast<std::int64_t>(index) * info_.seq_len;
    return {stream_.slice(0, start, start + info_.seq_len), stream_.slice(0, start + 1, start + info_.seq_len + 1)};
  }
  std::size_t size() const override { return static_cast<std::size_t>(samples_); }
  const DatasetInfo& info() const override { return info_; }

 private:
  DatasetInfo info_;
  std::int64_t samples_ = 0;
  at::Tensor stream_;
};

const DatasetRegistrar kRegister({
    "tokens",
    "token windows from a sparse Markov chain",
    [](const DatasetRequest& req) { return std::make_shared<TokenSource>(req); },
    {{"samples", OptionType::integer, 1, {}, {}, 4096, "windows of seq_len tokens"},
     {"seq_len", OptionType::integer, 1, {}, {}, 64, "tokens per sample"},
     {"vocab", OptionType::integer, 1, {}, {}, 256, "vocabulary size"}},
});

}  // namespace
}  // namespace tb
