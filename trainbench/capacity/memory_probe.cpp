#include <trainbench/capacity/memory_probe.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace tb::capacity {

std::int64_t parse_proc_status_bytes(const std::string& status_text, const std::string& field) {
  std::istringstream in(status_text);
  std::string line;
  const std::string prefix = field + ":";
  while (std::getline(in, line)) {
    if (line.compare(0, prefix.size(), prefix) != 0) continue;
    std::istringstream values(line.substr(prefix.size()));
    long long amount = 0;
    std::string unit;
    if (!(values >> amount)) return -1;
    values >> unit;
    return unit == "kB" ? amount * 1024 : amount;
  }
  return -1;
}

std::int64_t read_proc_status_bytes(const std::string& field) {
  std::ifstream file("/proc/self/status");
  if (!file) return -1;
  std::stringstream text;
  text << file.rdbuf();
  return parse_proc_status_bytes(text.str(), field);
}

PeakRssProbe::~PeakRssProbe() {
  stop_ = true;
  if (sampler_.joinable()) sampler_.join();
}

void PeakRssProbe::reset() {
  if (!sampling_) {
    if (!force_sampling_) {
      std::ofstream clear("/proc/self/clear_refs");
      if (clear && (clear << "5").flush()) return;
    }
    start_sampler();
  }
  sampled_peak_ = current_rss_bytes();
}

void PeakRssProbe::start_sampler() {
  sampled_peak_ = current_rss_bytes();
  sampling_ = true;
  sampler_ = std::thread([this] {
    while (!stop_) {
      raise_sampled_peak(current_rss_bytes());
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
}

void PeakRssProbe::raise_sampled_peak(std::int64_t now) const {
  std::int64_t seen = sampled_peak_.load();
  while (now > seen && !sampled_peak_.compare_exchange_weak(seen, now)) {}
}

std::int64_t PeakRssProbe::peak_rss_bytes() const {
  if (sampling_) {
    raise_sampled_peak(current_rss_bytes());
    return sampled_peak_.load();
  }
  return read_proc_status_bytes("VmHWM");
}

std::int64_t PeakRssProbe::current_rss_bytes() const { return read_proc_status_bytes("VmRSS"); }

}  // namespace tb::capacity
