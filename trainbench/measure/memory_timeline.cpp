#include <trainbench/measure/memory_timeline.hpp>

#include <cmath>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace tb {

namespace {
std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

std::optional<std::int64_t> parse_statm_rss_bytes(std::string_view text, long page_size) {
  // "size resident shared text lib data dt", in pages.
  std::size_t pos = text.find(' ');
  if (pos == std::string_view::npos || page_size <= 0) return std::nullopt;
  ++pos;
  std::int64_t pages = 0;
  std::size_t digits = 0;
  for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
    if (pages > (INT64_MAX / 10) / page_size) return std::nullopt;  // no overflow on nonsense
    pages = pages * 10 + (text[pos] - '0');
  }
  if (digits == 0) return std::nullopt;
  return pages * page_size;
}

std::int64_t read_statm_rss_bytes() {
  static const long page_size = sysconf(_SC_PAGESIZE);
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  return parse_statm_rss_bytes(std::string_view(buf, static_cast<std::size_t>(n)), page_size).value_or(-1);
}

MemorySampler::MemorySampler(std::function<std::int64_t()> read, std::string source, std::chrono::microseconds interval,
                             std::size_t max_points)
    : read_(std::move(read)), interval_(interval), max_points_(std::max<std::size_t>(max_points, 2)) {
  timeline_.source = std::move(source);
}

MemorySampler::~MemorySampler() {
  if (thread_.joinable()) stop();
}

void MemorySampler::start() {
  if (thread_.joinable()) throw std::logic_error("MemorySampler::start: already running");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string source = timeline_.source;
    timeline_ = MemoryTimeline{};
    timeline_.source = source;
    timeline_.start_ns = steady_ns();
    stride_ = 1;
    stopping_ = false;
    take_reading();
  }
  thread_ = std::thread([this] { loop(); });
}

void MemorySampler::take_reading() {
  const std::int64_t bytes = read_();
  if (bytes < 0) return;
  const std::int64_t now = steady_ns();
  if (timeline_.readings == 0 || bytes > timeline_.peak_bytes) {
    timeline_.peak_bytes = bytes;
    timeline_.peak_ts_ns = now;
  }
  if (timeline_.readings++ % stride_ != 0) return;
  timeline_.points.push_back({now, bytes});
  if (timeline_.points.size() >= max_points_) {
    // Full: keep every other point (those at multiples of the doubled stride).
    std::size_t kept = 0;
    for (std::size_t i = 0; i < timeline_.points.size(); i += 2) timeline_.points[kept++] = timeline_.points[i];
    timeline_.points.resize(kept);
    stride_ *= 2;
  }
}

void MemorySampler::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  auto next = std::chrono::steady_clock::now() + interval_;
  while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
    take_reading();
    next += interval_;
    // Behind (a descheduled thread): resume from now instead of a burst of catch-up readings.
    if (const auto now = std::chrono::steady_clock::now(); next < now) next = now + interval_;
  }
}

MemoryTimeline MemorySampler::stop() {
  if (!thread_.joinable()) return timeline_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  const int stride = stride_;
  stride_ = 1;  // the last reading is always kept: the window's end
  take_reading();
  stride_ = stride;
  timeline_.interval_ms = std::chrono::duration<double, std::milli>(interval_).count() * stride;
  return timeline_;
}

nlohmann::json memory_timeline_json(const MemoryTimeline& t) {
  nlohmann::json times = nlohmann::json::array(), bytes = nlohmann::json::array();
  for (const auto& p : t.points) {
    times.push_back(std::round(t.t_ms(p) * 1000) / 1000);  // microsecond resolution is plenty
    bytes.push_back(p.bytes);
  }
  return {{"source", t.source},
          {"interval_ms", t.interval_ms},
          {"readings", t.readings},
          {"peak_bytes", t.peak_bytes},
          {"peak_t_ms", t.readings > 0 ? std::round(static_cast<double>(t.peak_ts_ns - t.start_ns) / 1e3) / 1000 : 0.0},
          {"t_ms", times},
          {"bytes", bytes}};
}

}  // namespace tb
