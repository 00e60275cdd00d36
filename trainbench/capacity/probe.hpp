// One probe of the batch-size search: a few training steps at one batch size, and whether they
// fit in memory. Its own header because results.json's capacity section stores probes as they are.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tb::capacity {

struct Probe {
  int batch = 0;
  bool fits = false;
  double samples_per_s = 0;     // only meaningful when fits
  std::int64_t peak_bytes = 0;  // peak memory of the probe (device allocator or RSS), 0 unknown
  std::string note;             // e.g. "CUDA out of memory", "over budget 4.00 GiB", exception text
};

void to_json(nlohmann::json& j, const Probe& p);
void from_json(const nlohmann::json& j, Probe& p);

}  // namespace tb::capacity
