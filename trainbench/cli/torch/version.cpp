#include <trainbench/cli/torch/version.hpp>

#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>

#include <trainbench/build_config.hpp>

namespace tb::cli {

namespace {

// CUDA runtime versions are major * 1000 + minor * 10 (13000: 13.0).
std::string cuda_version() {
  try {
    if (!at::hasCUDA()) return "none";
    const long v = at::detail::getCUDAHooks().versionCUDART();
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  } catch (const std::exception&) {
    return "none";  // a CPU build's hooks refuse
  }
}

// cuDNN 9 versions are major * 10000 + minor * 100 + patch (91002: 9.10.2).
std::string cudnn_version() {
  try {
    const auto& hooks = at::detail::getCUDAHooks();
    if (!at::hasCUDA() || !hooks.hasCuDNN()) return "none";
    const long v = hooks.versionCuDNN();
    return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
  } catch (const std::exception&) { return "none"; }
}

}  // namespace

std::string version_text() {
  return std::string("trainbench ") + TRAINBENCH_VERSION + "\ntorch " + TORCH_VERSION + "\nCUDA " + cuda_version() +
         "\ncuDNN " + cudnn_version() + "\n";
}

}  // namespace tb::cli
