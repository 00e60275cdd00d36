// Run ids name a run's results folder and its history rows, so two runs must never share one,
// even when started in the same second (parallel CI jobs, a shell loop, containers).
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include "harness/core/matrix.hpp"

namespace tb {

// "20261203-071500.123-p4242-9f3a-quick": UTC time to the millisecond, the process id, a random
// salt (containers sharing a results folder may reuse process ids) and the matrix name. Sorts by
// start time as text.
std::string make_run_id(const MatrixSpec& spec);
std::string make_run_id(const std::string& matrix_name, std::chrono::system_clock::time_point when,
                        long pid, std::uint16_t salt);

// `id` with every character outside [A-Za-z0-9_-] replaced by '_': safe as a file name.
std::string safe_file_stem(const std::string& id);

}  // namespace tb
