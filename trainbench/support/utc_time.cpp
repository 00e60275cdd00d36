#include <trainbench/support/utc_time.hpp>

#include <ctime>

namespace tb {

std::string format_utc(std::chrono::system_clock::time_point when, UtcForm form) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, form == UtcForm::iso8601 ? "%Y-%m-%dT%H:%M:%SZ" : "%Y%m%d-%H%M%S", &tm);
  return text;
}

std::string utc_now(UtcForm form) { return format_utc(std::chrono::system_clock::now(), form); }

}  // namespace tb
