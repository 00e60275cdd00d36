// Ids (scenario ids, matrix names) used as parts of file names: run ids, trace files.
#pragma once
#include <string>

namespace tb {

// `id` with every character outside [A-Za-z0-9_-] replaced by '_' ("mlp/fp32/w0 a1:b64" ->
// "mlp_fp32_w0_a1_b64"): no folder separators, no spaces, no dot that could pass for a suffix.
std::string safe_file_stem(const std::string& id);

}  // namespace tb
