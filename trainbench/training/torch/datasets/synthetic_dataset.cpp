// "synthetic": an in-memory classification set that isolates compute from data loading.
// Inputs are N(0,1); labels come from a fixed random linear teacher, so the loss really falls.
#include <ATen/ATen.h>

#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

class SyntheticSource final : public SampleSource {
 public:
  explicit SyntheticSource(const DatasetRequest& req) {
    const auto samples = option_int(req.options, "dataset_options", "samples", 4096);
    const auto classes = option_int(req.options, "dataset_options", "classes", 10);
    if (req.options.contains("shape")) {
      info_.input_shape = req.options.at("shape").get<std::vector<std::int64_t>>();
    } else {
      info_.input_shape = {option_int(req.options, "dataset_options", "features", 512)};
    }
    info_.num_classes = classes;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(req.seed);
    std::vector<std::int64_t> shape = {samples};
    shape.insert(shape.end(), info_.input_shape.begin(), info_.input_shape.end());
    inputs_ = at::randn(shape, gen, at::kFloat);
    const auto flat = inputs_.reshape({samples, -1});
    const auto teacher = at::randn({flat.size(1), classes}, gen, at::kFloat);
    labels_ = at::matmul(flat, teacher).argmax(1);
  }

  torch::data::Example<> get(std::size_t index) override {
    const auto i = static_cast<std::int64_t>(index);
    return {inputs_[i], labels_[i]};
  }
  std::size_t size() const override { return static_cast<std::size_t>(inputs_.size(0)); }
  const DatasetInfo& info() const override { return info_; }

 private:
  DatasetInfo info_;
  at::Tensor inputs_;
  at::Tensor labels_;
};

const DatasetRegistrar kRegister({
    "synthetic",
    "in-memory tensors; isolates compute",
    [](const DatasetRequest& req) { return std::make_shared<SyntheticSource>(req); },
    {{"samples", OptionType::integer, 1, {}, {}, 4096, "samples held in memory"},
     {"classes", OptionType::integer, 1, {}, {}, 10, "classification targets"},
     {"features", OptionType::integer, 1, {}, {}, 512, "per-sample input size (a flat vector)"},
     {"shape",
      OptionType::integer_list,
      1,
      {},
      {},
      nullptr,
      "per-sample input shape instead of features, e.g. [3, 32, 32]"}},
    {{"shape",
      [](const nlohmann::json& given, const nlohmann::json&) -> std::string {
        return given.contains("shape") && given.contains("features")
                   ? "conflicts with dataset_options.features (give one: shape replaces features)"
                   : "";
      }}},
});

}  // namespace
}  // namespace tb
