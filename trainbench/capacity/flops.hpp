// Analytic FLOP counting from layer descriptions, so MFU needs no profiler and no torch.
//
// Conventions (the usual ones of MFU reporting, e.g. PaLM / Megatron papers):
//  * One multiply-add is 2 FLOPs. Only matrix-multiply work is counted; element-wise ops,
//    normalisations, activations, softmax and the optimizer update are ignored (they are
//    small next to the matmuls, and "model FLOPs" utilisation is defined on matmul work).
//  * Linear forward    = 2 * in * out * rows_per_sample   (rows = tokens for sequence models).
//  * Conv2d forward    = 2 * (in_channels / groups) * kernel_h * kernel_w * out_channels
//                        * out_h * out_w.
//  * Attention forward = the score matmul Q K^T and the weighted sum A V only (the Q/K/V/output
//    projections are separate LinearLayers): 2 matmuls * 2 * seq_len^2 * d_model, independent of
//    the head count. With causal = true the count is halved (only the lower triangle is useful
//    work; kernels like flash-attention skip the rest). With causal = false the full square is
//    counted, even for causally masked models that compute it anyway.
//  * Embedding lookups are gathers: 0 FLOPs.
//  * Backward = 2 x forward (the input gradient and the weight gradient each cost one forward).
//    Strictly, the first layer needs no input gradient, so this slightly over-counts; we keep
//    the standard 2x convention so that numbers are comparable with published MFU figures.
// All counts are per sample; multiply by the batch for a step.
#pragma once
#include <cstdint>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb::capacity {

struct LinearLayer {
  std::int64_t in = 0, out = 0;
  std::int64_t rows_per_sample = 1;  // tokens per sample for sequence models
};

struct Conv2dLayer {
  std::int64_t in_channels = 0, out_channels = 0;
  std::int64_t kernel_h = 0, kernel_w = 0;
  std::int64_t out_h = 0, out_w = 0;
  std::int64_t groups = 1;
};

// The QK^T and AV matmuls of one attention block; projections are LinearLayers.
struct AttentionLayer {
  std::int64_t seq_len = 0, d_model = 0, heads = 1;
  bool causal = false;  // true: count only the lower triangle (half)
};

// Table lookup: no matmul FLOPs (listed so layer lists read like the model).
struct EmbeddingLayer {
  std::int64_t num_embeddings = 0, dim = 0;
  std::int64_t rows_per_sample = 1;
};

using LayerSpec = std::variant<LinearLayer, Conv2dLayer, AttentionLayer, EmbeddingLayer>;

struct FlopCount {
  double forward = 0, backward = 0;
  double total() const { return forward + backward; }
  FlopCount& operator+=(const FlopCount& o) {
    forward += o.forward;
    backward += o.backward;
    return *this;
  }
};

// Forward FLOPs of one layer for one sample (conventions above).
double forward_flops(const LayerSpec& layer);

// Per-sample FLOPs of a model given as its matmul-bearing layers; backward = 2 x forward.
FlopCount count_flops(const std::vector<LayerSpec>& per_sample_layers);

// A forward-only count turned into forward + backward with the 2x convention.
FlopCount with_standard_backward(double forward_flops_per_sample);

// {"forward", "backward", "total"}; read leniently (a mistyped field is 0, a count edited down
// to its total keeps it as forward).
void to_json(nlohmann::json& j, const FlopCount& f);
void from_json(const nlohmann::json& j, FlopCount& f);

}  // namespace tb::capacity
