// "tensors": the user's own samples from a file saved in Python with
//   torch.save({"inputs": Tensor[N, ...], "targets": Tensor[N, ...]}, "data.pt")
// (torch.save's zip format; read with torch::pickle_load). Held in memory like "synthetic".
// Integer targets are class labels (num_classes = max + 1), or next-token targets when inputs and
// targets are both integer [N, T] (vocab_size = the largest id + 1, seq_len = T); floating
// targets are regression targets (loss "mse"). Inputs become float32 (floating) or int64.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <ATen/ATen.h>
#include <torch/serialize.h>

#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kField = "dataset_options.path";
constexpr const char* kLayout = "torch.save({\"inputs\": Tensor[N, ...], \"targets\": Tensor[N, ...]}, path)";

c10::IValue read_archive(const std::string& path) {
  std::error_code ec;
  TB_CHECK_INPUT(fs::is_regular_file(path, ec), "matrix", kField, "no such file '", path, "'");
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TB_CHECK_INPUT(in.good() || in.eof(), "matrix", kField, "cannot read '", path, "'");
  try {
    return torch::pickle_load(bytes);
  } catch (const c10::Error& e) {
    std::string reason = e.what_without_backtrace();
    reason = reason.substr(0, reason.find('\n'));
    throw InputError("matrix", kField, "'" + path + "' is not a file written by " + kLayout + ": " + reason);
  }
}

at::Tensor tensor_entry(const c10::Dict<c10::IValue, c10::IValue>& dict, const std::string& key,
                        const std::string& path) {
  const auto found = dict.find(c10::IValue(key));
  TB_CHECK_INPUT(found != dict.end(), "matrix", kField, "'", path, "' has no \"", key, "\" entry (expected ", kLayout,
                 ")");
  TB_CHECK_INPUT(found->value().isTensor(), "matrix", kField, "'", path, "': \"", key, "\" is a ",
                 found->value().tagKind(), ", not a tensor");
  const at::Tensor t = found->value().toTensor();
  TB_CHECK_INPUT(t.dim() >= 1, "matrix", kField, "'", path, "': \"", key,
                 "\" is a scalar; it must be Tensor[N, ...] with one row per sample");
  TB_CHECK_INPUT(at::isFloatingType(t.scalar_type()) || at::isIntegralType(t.scalar_type(), /*includeBool=*/false),
                 "matrix", kField, "'", path, "': \"", key, "\" holds ", t.scalar_type(),
                 "; it must hold floating-point or integer numbers");
  // Floating data as float32 (what the models compute in), integers as int64 (ids and labels).
  return t.to(at::isFloatingType(t.scalar_type()) ? at::kFloat : at::kLong).contiguous();
}

class TensorFileSource final : public SampleSource {
 public:
  explicit TensorFileSource(const DatasetRequest& req) {
    TB_CHECK_INPUT(req.options.contains("path") && req.options.at("path").is_string(), "matrix", kField,
                   "required: the file written by ", kLayout);
    const std::string path = req.options.at("path").get<std::string>();
    const c10::IValue archive = read_archive(path);
    TB_CHECK_INPUT(archive.isGenericDict(), "matrix", kField, "'", path, "' holds a ", archive.tagKind(),
                   ", not a dict; expected ", kLayout);
    const auto dict = archive.toGenericDict();
    inputs_ = tensor_entry(dict, "inputs", path);
    targets_ = tensor_entry(dict, "targets", path);
    TB_CHECK_INPUT(inputs_.size(0) > 0, "matrix", kField, "'", path, "' holds no samples (inputs ", inputs_.sizes(),
                   ")");
    TB_CHECK_INPUT(inputs_.size(0) == targets_.size(0), "matrix", kField, "'", path, "': inputs have ", inputs_.size(0),
                   " samples but targets ", targets_.size(0), " (the first dimensions differ)");
    info_.input_shape.assign(inputs_.sizes().begin() + 1, inputs_.sizes().end());
    if (targets_.scalar_type() != at::kLong) return;  // regression targets
    TB_CHECK_INPUT(targets_.min().item<std::int64_t>() >= 0, "matrix", kField, "'", path,
                   "': integer targets are class labels or token ids and must not be negative");
    const std::int64_t largest = targets_.max().item<std::int64_t>();
    if (inputs_.scalar_type() == at::kLong && inputs_.dim() == 2 && targets_.sizes() == inputs_.sizes()) {
      info_.seq_len = inputs_.size(1);
      info_.vocab_size = std::max(largest, inputs_.max().item<std::int64_t>()) + 1;
    } else {
      info_.num_classes = largest + 1;
    }
  }

  torch::data::Example<> get(std::size_t index) override {
    const auto i = static_cast<std::int64_t>(index);
    return {inputs_[i], targets_[i]};
  }
  std::size_t size() const override { return static_cast<std::size_t>(inputs_.size(0)); }
  const DatasetInfo& info() const override { return info_; }

 private:
  DatasetInfo info_;
  at::Tensor inputs_;
  at::Tensor targets_;
};

const DatasetRegistrar kRegister({
    "tensors",
    "your own tensors from Python: torch.save({\"inputs\": ..., \"targets\": ...}, path)",
    [](const DatasetRequest& req) { return std::make_shared<TensorFileSource>(req); },
    {{"path",
      OptionType::path,
      {},
      {},
      {},
      nullptr,
      "the .pt file (required): a dict of two Tensor[N, ...], \"inputs\" and \"targets\", saved with torch.save"}},
    {{"path",
      [](const nlohmann::json& given, const nlohmann::json&) -> std::string {
        return given.contains("path")
                   ? ""
                   : "required: the file written by torch.save({\"inputs\": ..., \"targets\": ...}, path)";
      }}},
});

}  // namespace
}  // namespace tb
