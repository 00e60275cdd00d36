#include <trainbench/capacity/flops.hpp>

#include <stdexcept>
#include <string>

#include <trainbench/support/json_fields.hpp>

namespace tb::capacity {
namespace {

void require_non_negative(std::int64_t v, const char* what) {
  if (v < 0) throw std::invalid_argument(std::string("negative ") + what + " in a layer spec");
}

double linear_forward(const LinearLayer& l) {
  require_non_negative(l.in, "Linear.in");
  require_non_negative(l.out, "Linear.out");
  require_non_negative(l.rows_per_sample, "Linear.rows_per_sample");
  return 2.0 * static_cast<double>(l.in) * static_cast<double>(l.out) * static_cast<double>(l.rows_per_sample);
}

double conv2d_forward(const Conv2dLayer& c) {
  if (c.groups <= 0 || c.in_channels % c.groups != 0 || c.out_channels % c.groups != 0)
    throw std::invalid_argument("Conv2d.groups must be positive and divide both channel counts");
  require_non_negative(c.kernel_h, "Conv2d.kernel_h");
  require_non_negative(c.kernel_w, "Conv2d.kernel_w");
  require_non_negative(c.out_h, "Conv2d.out_h");
  require_non_negative(c.out_w, "Conv2d.out_w");
  return 2.0 * static_cast<double>(c.in_channels / c.groups) * static_cast<double>(c.kernel_h) *
         static_cast<double>(c.kernel_w) * static_cast<double>(c.out_channels) * static_cast<double>(c.out_h) *
         static_cast<double>(c.out_w);
}

double attention_forward(const AttentionLayer& a) {
  require_non_negative(a.seq_len, "Attention.seq_len");
  require_non_negative(a.d_model, "Attention.d_model");
  if (a.heads <= 0 || a.d_model % a.heads != 0)
    throw std::invalid_argument("Attention.heads must be positive and divide d_model");
  // Per head: QK^T is (s x dh)(dh x s), AV is (s x s)(s x dh): 2*s*s*dh each. Summed over
  // heads the head count cancels: 2 matmuls * 2 * s^2 * d_model.
  const double s = static_cast<double>(a.seq_len);
  const double full = 2.0 * 2.0 * s * s * static_cast<double>(a.d_model);
  return a.causal ? full / 2.0 : full;
}

}  // namespace

double forward_flops(const LayerSpec& layer) {
  return std::visit(
      [](const auto& l) -> double {
        using T = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<T, LinearLayer>) return linear_forward(l);
        else if constexpr (std::is_same_v<T, Conv2dLayer>) return conv2d_forward(l);
        else if constexpr (std::is_same_v<T, AttentionLayer>) return attention_forward(l);
        else return 0.0;  // EmbeddingLayer: a gather
      },
      layer);
}

FlopCount with_standard_backward(double forward_flops_per_sample) {
  return FlopCount{forward_flops_per_sample, 2.0 * forward_flops_per_sample};
}

FlopCount count_flops(const std::vector<LayerSpec>& per_sample_layers) {
  double forward = 0;
  for (const auto& layer : per_sample_layers) forward += forward_flops(layer);
  return with_standard_backward(forward);
}

void to_json(nlohmann::json& j, const FlopCount& f) {
  j = nlohmann::json{{"forward", f.forward}, {"backward", f.backward}, {"total", f.total()}};
}

void from_json(const nlohmann::json& j, FlopCount& f) {
  f = {field_number(j, "forward"), field_number(j, "backward")};
  if (f.total() == 0) f.forward = field_number(j, "total");  // a count edited down to its total keeps it
}

}  // namespace tb::capacity
