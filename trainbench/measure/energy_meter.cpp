#include <trainbench/measure/energy_meter.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include <trainbench/measure/gpu_monitor.hpp>

namespace tb {

namespace fs = std::filesystem;

namespace {

// One unsigned decimal number from a sysfs file; the error text names the file.
std::optional<std::uint64_t> read_counter_file(const fs::path& file, std::string& error) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == EACCES || err == EPERM)
      error = "permission denied reading " + file.string() +
              " (root only since Linux 5.10; run as root or make it readable: sudo chmod o+r)";
    else error = "cannot read " + file.string() + ": " + std::strerror(err);
    return std::nullopt;
  }
  char buf[32] = {};
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = n > 0 ? std::strtoull(buf, &end, 10) : 0;
  if (n <= 0 || end == buf || errno == ERANGE) {
    error = "cannot read " + file.string() + ": not a counter value";
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(value);
}

std::string read_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

struct RaplZone {
  fs::path energy_file;
  std::uint64_t max_range_uj = 0;
  std::uint64_t last_uj = 0;
};

class RaplCounter final : public EnergyCounter {
 public:
  explicit RaplCounter(std::vector<RaplZone> zones) : zones_(std::move(zones)) {}
  std::string source() const override { return "rapl"; }
  std::string scope() const override { return "CPU packages (whole machine, every process)"; }
  std::optional<double> read_joules() override {
    std::string error;
    for (auto& z : zones_) {
      const auto now = read_counter_file(z.energy_file, error);
      if (!now) return std::nullopt;
      total_uj_ += rapl_delta_uj(z.last_uj, *now, z.max_range_uj);
      z.last_uj = *now;
    }
    return static_cast<double>(total_uj_) / 1e6;
  }

 private:
  std::vector<RaplZone> zones_;
  std::uint64_t total_uj_ = 0;
};

class NvmlCounter final : public EnergyCounter {
 public:
  NvmlCounter(const NvmlLibrary& nvml, unsigned index, std::uint64_t first_mj)
      : nvml_(nvml), index_(index), first_mj_(first_mj) {}
  std::string source() const override { return "nvml"; }
  std::string scope() const override { return "GPU " + std::to_string(index_); }
  std::optional<double> read_joules() override {
    const auto mj = nvml_.total_energy_mj(index_);
    if (!mj || *mj < first_mj_) return std::nullopt;  // the driver reloaded: the counter restarted
    return static_cast<double>(*mj - first_mj_) / 1e3;
  }

 private:
  const NvmlLibrary& nvml_;
  unsigned index_;
  std::uint64_t first_mj_;
};

}  // namespace

std::uint64_t rapl_delta_uj(std::uint64_t before, std::uint64_t after, std::uint64_t max_range_uj) {
  if (after >= before) return after - before;
  // Wrapped: up to the range's end, then from 0. Without a known range, the reading is unusable
  // as a difference, and 0 is the honest lower bound.
  return max_range_uj >= before ? (max_range_uj - before) + after : 0;
}

EnergyCounterChoice open_rapl_counter(const fs::path& powercap_root) {
  std::error_code ec;
  std::vector<fs::path> top, packages;
  for (fs::directory_iterator it(powercap_root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("intel-rapl:", 0) != 0 || name.find(':', 11) != std::string::npos) continue;  // no sub-zones
    top.push_back(it->path());
    if (read_line(it->path() / "name").rfind("package", 0) == 0) packages.push_back(it->path());
  }
  if (top.empty())
    return {nullptr, "no " + (powercap_root / "intel-rapl:*").string() +
                         " (no RAPL energy counter: a virtual machine, or a CPU or kernel without it)"};
  auto& zones_dirs = packages.empty() ? top : packages;
  std::sort(zones_dirs.begin(), zones_dirs.end());
  std::vector<RaplZone> zones;
  for (const auto& dir : zones_dirs) {
    RaplZone z;
    z.energy_file = dir / "energy_uj";
    std::string error;
    const auto now = read_counter_file(z.energy_file, error);
    if (!now) return {nullptr, error};
    z.last_uj = *now;
    std::string range_error;
    z.max_range_uj = read_counter_file(dir / "max_energy_range_uj", range_error).value_or(0);
    zones.push_back(std::move(z));
  }
  return {std::make_unique<RaplCounter>(std::move(zones)), ""};
}

EnergyCounterChoice open_nvml_counter(const NvmlLibrary& nvml, unsigned index) {
  if (!nvml.available()) return {nullptr, nvml.reason()};
  const auto first = nvml.total_energy_mj(index);
  if (!first)
    return {nullptr, "NVML has no total-energy counter for GPU " + std::to_string(index) +
                         " (nvmlDeviceGetTotalEnergyConsumption needs a Volta or newer GPU)"};
  return {std::make_unique<NvmlCounter>(nvml, index, *first), ""};
}

EnergyCounterChoice open_energy_counter(const std::string& device, unsigned index, const fs::path& powercap_root) {
  if (device == "cuda") return open_nvml_counter(NvmlLibrary::shared(), index);
  return open_rapl_counter(powercap_root);
}

EnergyMeter::EnergyMeter(EnergyCounterChoice choice)
    : counter_(std::move(choice.counter)), reason_(std::move(choice.reason)) {}

void EnergyMeter::begin() {
  if (!counter_) return;
  open_ = counter_->read_joules();
  if (!open_) reason_ = counter_->source() + " energy counter became unreadable";
}

void EnergyMeter::end(std::int64_t steps, double samples) {
  if (!counter_ || !open_) return;
  const auto now = counter_->read_joules();
  if (!now) {
    reason_ = counter_->source() + " energy counter became unreadable";
    open_.reset();
    return;
  }
  joules_ += std::max(0.0, *now - *open_);
  steps_ += steps;
  samples_ += samples;
  open_.reset();
}

EnergyResult EnergyMeter::result() const {
  EnergyResult r;
  if (counter_) {
    r.source = counter_->source();
    r.scope = counter_->scope();
  }
  r.reason = reason_;
  if (!counter_ || !reason_.empty()) return r;
  if (steps_ == 0) {
    r.reason = "no measured step";
    return r;
  }
  if (joules_ <= 0) {
    r.reason =
        "the " + r.source + " energy counter did not advance over the measured steps (too short for its resolution)";
    return r;
  }
  r.available = true;
  r.joules = joules_;
  r.steps = steps_;
  r.joules_per_step = joules_ / static_cast<double>(steps_);
  r.samples_per_joule = samples_ / joules_;
  return r;
}

}  // namespace tb
