// Run ids name a run's results folder and its history rows, so two runs must never share one,
// even when started in the same second (parallel CI jobs, a shell loop, containers).
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/support/safe_file_stem.hpp>  // the matrix name's part of a run id

namespace tb {

// "20261203-071500.123-p4242-9f3a-quick": UTC time to the millisecond, the process id, a random
// salt (containers sharing a results folder may reuse process ids) and the matrix name. Sorts by
// start time as text.
std::string make_run_id(const MatrixSpec& spec);
std::string make_run_id(const std::string& matrix_name, std::chrono::system_clock::time_point when, long pid,
                        std::uint16_t salt);

}  // namespace tb
