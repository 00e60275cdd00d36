#include <trainbench/capacity/peak_result.hpp>

#include <algorithm>
#include <limits>

#include <trainbench/support/json_fields.hpp>

namespace tb::capacity {

namespace {
int int_field(const nlohmann::json& j, const char* key, int fallback = 0) {
  return static_cast<int>(std::clamp<std::int64_t>(field_integer(j, key, fallback), std::numeric_limits<int>::min(),
                                                   std::numeric_limits<int>::max()));
}
}  // namespace

void to_json(nlohmann::json& j, const PeakSizeResult& size) {
  j = nlohmann::json{{"n", size.n},
                     {"median_flops_per_s", size.median_flops_per_s},
                     {"min_flops_per_s", size.min_flops_per_s},
                     {"max_flops_per_s", size.max_flops_per_s},
                     {"blocks", size.blocks},
                     {"matmuls_per_block", size.matmuls_per_block}};
}

void to_json(nlohmann::json& j, const PeakResult& peak) {
  j = nlohmann::json{{"flops_per_s", peak.flops_per_s},
                     {"n", peak.n},
                     {"dtype", peak.dtype},
                     {"device", peak.device},
                     {"median_s", peak.median_s},
                     {"samples", peak.samples},
                     {"matmuls_per_sample", peak.matmuls_per_sample},
                     {"threads", peak.threads},
                     {"min_flops_per_s", peak.min_flops_per_s},
                     {"max_flops_per_s", peak.max_flops_per_s},
                     {"rel_spread", peak.rel_spread},
                     {"sizes", peak.sizes}};
  if (!peak.kernel.empty()) j["kernel"] = peak.kernel;
  if (!peak.stopped.empty()) j["stopped"] = peak.stopped;
}

void from_json(const nlohmann::json& j, PeakSizeResult& size) {
  size.n = int_field(j, "n");
  size.median_flops_per_s = field_number(j, "median_flops_per_s");
  size.min_flops_per_s = field_number(j, "min_flops_per_s");
  size.max_flops_per_s = field_number(j, "max_flops_per_s");
  size.blocks = int_field(j, "blocks");
  size.matmuls_per_block = int_field(j, "matmuls_per_block", 1);
}

void from_json(const nlohmann::json& j, PeakResult& peak) {
  peak.flops_per_s = field_number(j, "flops_per_s");
  peak.n = int_field(j, "n");
  peak.dtype = field_text(j, "dtype");
  peak.device = field_text(j, "device");
  peak.median_s = field_number(j, "median_s");
  peak.samples = int_field(j, "samples");
  peak.matmuls_per_sample = int_field(j, "matmuls_per_sample", 1);
  peak.threads = int_field(j, "threads");
  peak.min_flops_per_s = field_number(j, "min_flops_per_s");
  peak.max_flops_per_s = field_number(j, "max_flops_per_s");
  peak.rel_spread = field_number(j, "rel_spread");
  peak.kernel = field_text(j, "kernel");
  peak.stopped = field_text(j, "stopped");
  peak.sizes.clear();
  if (const auto it = j.find("sizes"); it != j.end() && it->is_array())
    for (const auto& size : *it)
      if (size.is_object()) peak.sizes.push_back(size.get<PeakSizeResult>());
}

}  // namespace tb::capacity
