#include <trainbench/measure/system_info.hpp>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <unistd.h>

#include <trainbench/support/json_integer.hpp>
#include <trainbench/support/text_file.hpp>

namespace tb {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// A whole non-negative decimal number, nothing else.
std::optional<std::int64_t> parse_count(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return std::stoll(std::string(s));
}

std::optional<double> parse_positive(std::string_view s) {
  const std::string text(trim(s));
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v > 0) || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> parse_cpuinfo_mhz(std::string_view cpuinfo) {
  std::istringstream in{std::string(cpuinfo)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) return std::nullopt;
    return parse_positive(std::string_view(line).substr(colon + 1));
  }
  return std::nullopt;
}

std::optional<double> parse_cpufreq_khz(std::string_view text) {
  const auto khz = parse_count(text);
  if (!khz || *khz == 0) return std::nullopt;
  return static_cast<double>(*khz) / 1000.0;
}

std::optional<std::int64_t> parse_cache_size(std::string_view text) {
  text = trim(text);
  std::int64_t scale = 1;
  if (!text.empty() && (text.back() == 'K' || text.back() == 'M' || text.back() == 'G')) {
    scale = text.back() == 'K' ? 1024 : text.back() == 'M' ? 1024 * 1024 : 1024 * 1024 * 1024;
    text.remove_suffix(1);
  }
  const auto n = parse_count(text);
  if (!n) return std::nullopt;
  return *n * scale;
}

std::optional<int> parse_cpu_list_count(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  int count = 0;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    const auto dash = item.find('-');
    const auto lo = parse_count(item.substr(0, dash));
    const auto hi = dash == std::string_view::npos ? lo : parse_count(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo) return std::nullopt;
    count += static_cast<int>(*hi - *lo + 1);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return count;
}

std::optional<int> parse_cpu_mask_count(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  int count = 0;
  for (char c : text) {
    if (c == ',') continue;
    int v = 0;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else return std::nullopt;
    count += __builtin_popcount(static_cast<unsigned>(v));
  }
  return count;
}

bool governor_scales(std::string_view governor) { return trim(governor) != "performance"; }

std::vector<CacheInfo> read_caches(const std::filesystem::path& cache_dir) {
  std::vector<CacheInfo> caches;
  for (int i = 0;; ++i) {
    const auto dir = cache_dir / ("index" + std::to_string(i));
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) break;
    const auto level = read_text_file(dir / "level");
    const auto type = read_text_file(dir / "type");
    const auto size = read_text_file(dir / "size");
    const auto lvl = level ? parse_count(*level) : std::nullopt;
    const auto bytes = size ? parse_cache_size(*size) : std::nullopt;
    if (!lvl || !type || trim(*type).empty() || !bytes) continue;
    std::optional<int> sharing;
    if (const auto list = read_text_file(dir / "shared_cpu_list")) sharing = parse_cpu_list_count(*list);
    if (!sharing)
      if (const auto mask = read_text_file(dir / "shared_cpu_map")) sharing = parse_cpu_mask_count(*mask);
    caches.push_back(CacheInfo{std::string(trim(*type)), static_cast<int>(*lvl), *bytes, sharing.value_or(0)});
  }
  return caches;
}

SystemInfo read_system_info() {
  SystemInfo info;
  if (const long n = sysconf(_SC_NPROCESSORS_ONLN); n > 0) info.num_cpus = static_cast<int>(n);
  const std::filesystem::path cpu0 = "/sys/devices/system/cpu/cpu0";
  std::optional<double> mhz;
  if (const auto text = read_text_file("/proc/cpuinfo")) mhz = parse_cpuinfo_mhz(*text);
  if (!mhz)
    if (const auto text = read_text_file(cpu0 / "cpufreq" / "cpuinfo_max_freq")) mhz = parse_cpufreq_khz(*text);
  info.mhz_per_cpu = mhz.value_or(0.0);
  for (int cpu = 0; cpu < info.num_cpus; ++cpu) {
    const auto governor =
        read_text_file("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor");
    if (!governor) continue;
    info.cpu_scaling_enabled = info.cpu_scaling_enabled.value_or(false) || governor_scales(*governor);
  }
  info.caches = read_caches(cpu0 / "cache");
  double avg[3] = {};
  if (const int n = getloadavg(avg, 3); n > 0) info.load_avg.assign(avg, avg + n);
  return info;
}

void to_json(nlohmann::json& j, const CacheInfo& c) {
  j = {{"type", c.type}, {"level", c.level}, {"size", c.size}, {"num_sharing", c.num_sharing}};
}

void from_json(const nlohmann::json& j, CacheInfo& c) {
  c.type = j.value("type", std::string());
  c.level = integer_field(j, "level", 0);
  c.size = integer_field(j, "size", std::int64_t{0});
  c.num_sharing = integer_field(j, "num_sharing", 0);
}

void to_json(nlohmann::json& j, const SystemInfo& s) {
  j = {{"num_cpus", s.num_cpus}, {"mhz_per_cpu", s.mhz_per_cpu}, {"caches", s.caches}, {"load_avg", s.load_avg}};
  if (s.cpu_scaling_enabled) j["cpu_scaling_enabled"] = *s.cpu_scaling_enabled;
}

void from_json(const nlohmann::json& j, SystemInfo& s) {
  s = SystemInfo{};
  s.num_cpus = integer_field(j, "num_cpus", 0);
  s.mhz_per_cpu = j.value("mhz_per_cpu", 0.0);
  if (j.contains("cpu_scaling_enabled") && j.at("cpu_scaling_enabled").is_boolean())
    s.cpu_scaling_enabled = j.at("cpu_scaling_enabled").get<bool>();
  if (j.contains("caches") && j.at("caches").is_array()) s.caches = j.at("caches").get<std::vector<CacheInfo>>();
  if (j.contains("load_avg") && j.at("load_avg").is_array()) s.load_avg = j.at("load_avg").get<std::vector<double>>();
}

}  // namespace tb
