// Validation of a scenario's "profile" block before any work starts.
#pragma once
#include <string>

#include "harness/core/scenario.hpp"

namespace tb::profiling {

// Throws tb::InputError(file, "profile.<field>", ...) for combinations that can never work
// (cupti together with kineto: CUPTI serves one subscriber at a time; a window below 1).
// Returns a non-empty reason when the options are valid but this machine cannot honour them
// (cupti without a GPU or without a CUPTI-enabled build): the caller records the profiling
// part as skipped with that reason instead of failing the scenario.
//   cupti_built: whether the binary has the collector (defined(TRAINBENCH_HAVE_CUPTI)).
std::string check_profile_options(const ProfileOptions& options, bool cuda_available,
                                  bool cupti_built = true, const std::string& file = "profile");

}  // namespace tb::profiling
