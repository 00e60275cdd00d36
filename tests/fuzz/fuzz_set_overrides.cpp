// libFuzzer target: command-line `--set KEY=VALUE` overrides, one per input line, applied to a
// fixed matrix that uses every section, then validated and used as `trainbench run` would.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <trainbench/support/json_input.hpp>
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/helpers/matrix_catalog.hpp"

namespace {

const char* const kBaseMatrix = R"({
  "name": "fuzz", "model": "mlp", "dataset": "synthetic", "device": "cpu",
  "dataset_options": {"samples": 256, "features": 32},
  "model_options": {"hidden": 32},
  "optimizer": {"name": "sgd", "lr": 0.1, "momentum": 0.9}, "seed": 7,
  "steps": {"warmup": 1, "min": 3, "max": 8, "target_rel_ci": 0.5, "time_budget_s": 1, "rounds": 2},
  "axes": {"precision": ["fp32", "amp_bf16"], "workers": [0, 1], "accumulation": [1, 2], "batch": [8, 16]},
  "exclude": [{"precision": "amp_bf16", "workers": 1}],
  "baseline": {"precision": "fp32", "batch": 8},
  "profile": {"enabled": false, "window": 2},
  "contention": {"other_cpu_cores": 1.5},
  "capacity": {"start": 8, "max_batch": 64, "multiple_of": 8, "target": "1e6 samples"}
})";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tb::MatrixParseOptions options = tb::full_catalog();
  static const nlohmann::json base = tb::parse_json_text(kBaseMatrix, "base.json");
  // The base itself must parse, or every input would stop at the same error and test nothing.
  static const bool base_parses = (tb::parse_matrix(base, "base.json", options), true);
  (void)base_parses;
  const auto overrides = lines(std::string(reinterpret_cast<const char*>(data), size));
  tb::fuzz::expect_input_errors_only(
      [&] { tb::fuzz::use_matrix(tb::parse_matrix(tb::apply_set_overrides(base, overrides), "fuzz.json", options)); });
  return 0;
}
