#include <trainbench/profiling/profile_options_check.hpp>

#include <trainbench/support/error.hpp>

namespace tb::profiling {

void validate_profile_options(const ProfileOptions& options, std::optional<DeviceKind> device,
                              const std::string& file) {
  TB_CHECK_INPUT(options.window >= 1, file, "profile.window", "must be at least 1 optimizer step, got ",
                 options.window);
  TB_CHECK_INPUT(!(options.cupti && options.kineto), file, "profile.cupti",
                 "cupti and kineto cannot both be on: CUPTI serves one user at a time, so the "
                 "collector and the Kineto pass never run together (pick one)");
  TB_CHECK_INPUT(!(options.cupti && device == DeviceKind::cpu), file, "profile.cupti",
                 "needs a CUDA device, but the matrix runs on cpu (set \"device\": \"cuda\" on a GPU "
                 "machine, or use profile.kineto / profile.host_trace on the CPU)");
}

std::string check_profile_options(const ProfileOptions& options, bool cuda_available, bool cupti_built,
                                  const std::string& file) {
  if (!options.enabled) return "";
  validate_profile_options(options, std::nullopt, file);
  if (options.cupti && !cuda_available)
    return "profile.cupti needs a CUDA GPU (none available); CUPTI collection skipped";
  if (options.cupti && !cupti_built)
    return "profile.cupti: this build has no CUPTI collector (libcupti not found at configure "
           "time); CUPTI collection skipped";
  return "";
}

}  // namespace tb::profiling
