#include <trainbench/runner/run_id.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <random>

#include <trainbench/support/utc_time.hpp>

namespace tb {

std::string make_run_id(const std::string& matrix_name, std::chrono::system_clock::time_point when, long pid,
                        std::uint16_t salt) {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(when.time_since_epoch()).count();
  const std::string stamp = format_utc(when, UtcForm::compact);
  char id[96];
  std::snprintf(id, sizeof id, "%s.%03d-p%ld-%04x-", stamp.c_str(), static_cast<int>(ms % 1000), pid,
                static_cast<unsigned>(salt));
  return id + safe_file_stem(matrix_name);
}

std::string make_run_id(const MatrixSpec& spec) {
  // Random per process, then counting: calls in one process never repeat within a millisecond.
  static std::atomic<std::uint16_t> next_salt{static_cast<std::uint16_t>(std::random_device{}())};
  return make_run_id(spec.name, std::chrono::system_clock::now(), static_cast<long>(::getpid()), next_salt++);
}

}  // namespace tb
