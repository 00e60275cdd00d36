// Validation of a scenario's "profile" block before any work starts.
#pragma once
#include <optional>
#include <string>

#include <trainbench/matrix/scenario.hpp>

namespace tb::profiling {

// The checks of the matrix file itself, run by parse_matrix so that `list` and `run` refuse the
// file before any scenario runs. Throws tb::InputError(file, "profile.<field>", ...) for:
//   a window below 1;
//   cupti together with kineto (CUPTI serves one subscriber at a time);
//   cupti on a CPU device (`device` is the resolved one; nullopt skips this check).
// Applied whether or not `enabled` is set: `run --profile` turns a disabled block on.
void validate_profile_options(const ProfileOptions& options, std::optional<DeviceKind> device,
                              const std::string& file = "profile");

// At the start of a profiling pass: validate_profile_options (without the device check) when
// enabled, then returns a non-empty reason when the options are valid but this machine cannot
// honour them (cupti without a GPU or without a CUPTI-enabled build): the caller records the
// profiling part as skipped with that reason instead of failing the scenario.
//   cupti_built: whether the binary has the collector (defined(TRAINBENCH_HAVE_CUPTI)).
std::string check_profile_options(const ProfileOptions& options, bool cuda_available, bool cupti_built = true,
                                  const std::string& file = "profile");

}  // namespace tb::profiling
