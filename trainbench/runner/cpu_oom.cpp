#include <trainbench/runner/cpu_oom.hpp>

#include <cctype>

#include <trainbench/capacity/byte_size.hpp>

namespace tb {

namespace {

// The digits in "... allocate <N> bytes", or "" when the message has no size ("can't allocate
// memory: you tried to allocate 8 bytes" has two "allocate"s: the one with digits counts).
std::string requested_bytes(const std::string& what) {
  const std::string marker = "allocate ";
  for (auto at = what.find(marker); at != std::string::npos; at = what.find(marker, at + 1)) {
    const std::size_t begin = at + marker.size();
    std::size_t end = begin;
    while (end < what.size() && std::isdigit(static_cast<unsigned char>(what[end]))) ++end;
    if (end > begin && what.compare(end, 6, " bytes") == 0) return what.substr(begin, end - begin);
  }
  return "";
}

}  // namespace

std::optional<std::string> cpu_oom_message(const std::string& what) {
  if (what.find("DefaultCPUAllocator") == std::string::npos && what.find("alloc_cpu") == std::string::npos)
    return std::nullopt;
  const std::string digits = requested_bytes(what);
  if (digits.empty()) return cpu_bad_alloc_message();
  std::string message = "CPU out of memory: could not allocate " + digits + " bytes";
  // The readable size only when it fits the formatter (19 digits may not fit an int64).
  if (digits.size() < 19) message += " (" + capacity::format_bytes(std::stoll(digits)) + ")";
  return message;
}

std::string cpu_bad_alloc_message() { return "CPU out of memory: an allocation failed"; }

}  // namespace tb
