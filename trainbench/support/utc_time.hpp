// UTC timestamps as trainbench writes them, in one place: ISO 8601 in results and the history
// ("2026-12-07T18:58:00Z"), and the compact form in run ids and folder names ("20261207-185800",
// sorting as it reads, with no character a file system dislikes).
#pragma once
#include <chrono>
#include <string>

namespace tb {

enum class UtcForm {
  iso8601,  // 2026-12-07T18:58:00Z
  compact,  // 20261207-185800
};

// `when` to the second, in UTC (thread-safe: gmtime_r).
std::string format_utc(std::chrono::system_clock::time_point when, UtcForm form);
// format_utc of now.
std::string utc_now(UtcForm form = UtcForm::iso8601);

}  // namespace tb
