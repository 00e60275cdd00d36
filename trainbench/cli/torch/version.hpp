// `trainbench --version`: what was built and what it runs on.
#pragma once
#include <string>

namespace tb::cli {

// "trainbench X.Y.Z\ntorch V\nCUDA V|none\ncuDNN V|none\n", as LibTorch reports them ("none"
// without a usable CUDA).
std::string version_text();

}  // namespace tb::cli
