#include <trainbench/measure/host_load.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <trainbench/support/json_integer.hpp>
#include <trainbench/support/text_file.hpp>

namespace tb {
namespace {

// Counters can step back (a CPU taken offline leaves the aggregate); a negative delta is 0.
std::uint64_t delta(std::uint64_t later, std::uint64_t earlier) { return later > earlier ? later - earlier : 0; }

std::string format(const char* fmt, double a, double b) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

}  // namespace

std::uint64_t CpuTimes::total() const { return busy() + idle + iowait + steal; }

std::uint64_t CpuTimes::busy() const { return user + nice + system + irq + softirq; }

std::optional<CpuTimes> parse_proc_stat(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size() && text.compare(pos, 4, "cpu ") != 0) {
    pos = text.find('\n', pos);
    if (pos == std::string_view::npos) return std::nullopt;
    ++pos;
  }
  if (pos >= text.size()) return std::nullopt;
  auto rest = text.substr(pos + 4);
  std::istringstream line{std::string(rest.substr(0, rest.find('\n')))};
  CpuTimes t;
  std::uint64_t* const fields[] = {&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal};
  int read = 0;
  for (auto* f : fields) {
    std::string word;
    if (!(line >> word)) break;
    const char* end = word.data() + word.size();
    if (auto [ptr, ec] = std::from_chars(word.data(), end, *f); ec != std::errc{} || ptr != end) return std::nullopt;
    ++read;
  }
  if (read < 4) return std::nullopt;  // user nice system idle is the oldest format there is
  return t;
}

std::optional<std::array<double, 3>> parse_loadavg(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::array<double, 3> avg{};
  for (double& a : avg)
    if (!(in >> a) || a < 0) return std::nullopt;
  return avg;
}

double rusage_seconds(long user_s, long user_us, long system_s, long system_us) {
  return static_cast<double>(user_s + system_s) + static_cast<double>(user_us + system_us) * 1e-6;
}

LoadSnapshot take_load_snapshot() {
  LoadSnapshot s;
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  s.wall_s = std::chrono::duration<double>(now).count();
#ifdef __linux__
  if (auto text = read_text_file("/proc/stat")) s.cpu = parse_proc_stat(*text);
  if (auto text = read_text_file("/proc/loadavg")) s.load_avg = parse_loadavg(*text);
#endif
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) == 0)
    s.own_cpu_s = rusage_seconds(u.ru_utime.tv_sec, u.ru_utime.tv_usec, u.ru_stime.tv_sec, u.ru_stime.tv_usec);
  if (const long tck = sysconf(_SC_CLK_TCK); tck > 0) s.ticks_per_s = tck;
  if (const long n = sysconf(_SC_NPROCESSORS_ONLN); n > 0) s.num_cpus = static_cast<int>(n);
  return s;
}

std::optional<ProcStat> parse_proc_pid_stat(std::string_view text) {
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from the
  // last ')'. After it: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::istringstream in{std::string(text.substr(close + 1))};
  std::string state;
  long long fields[15] = {};
  in >> state;
  for (long long& f : fields)
    if (!(in >> f)) return std::nullopt;
  // fields[0] is ppid (field 4); utime is field 14, i.e. fields[10].
  ProcStat out;
  out.ppid = static_cast<int>(fields[0]);
  for (int i = 10; i <= 13; ++i) {
    if (fields[i] < 0) return std::nullopt;
    out.ticks += static_cast<std::uint64_t>(fields[i]);
  }
  return out;
}

std::optional<double> process_tree_cpu_seconds(int pid) {
#ifdef __linux__
  namespace fs = std::filesystem;
  std::map<int, ProcStat> all;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    int p = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), p).ec != std::errc() || p <= 0) continue;
    const auto text = read_text_file("/proc/" + name + "/stat");
    if (!text) continue;  // it ended meanwhile
    if (const auto st = parse_proc_pid_stat(*text)) all[p] = *st;
  }
  if (ec || !all.contains(pid)) return std::nullopt;
  std::uint64_t ticks = 0;
  std::vector<int> todo = {pid};
  std::set<int> seen;
  while (!todo.empty()) {
    const int p = todo.back();
    todo.pop_back();
    if (!seen.insert(p).second) continue;
    ticks += all[p].ticks;
    for (const auto& [child, st] : all)
      if (st.ppid == p) todo.push_back(child);
  }
  const long tck = sysconf(_SC_CLK_TCK);
  return static_cast<double>(ticks) / static_cast<double>(tck > 0 ? tck : 100);
#else
  (void)pid;
  return std::nullopt;
#endif
}

namespace {
constexpr std::uint64_t kMinStealWindowTicks = 100;  // 1 s of one CPU at USER_HZ 100
}  // namespace

void DisturbanceMeter::begin() { begin(take_load_snapshot()); }

std::optional<double> DisturbanceMeter::end() { return end(take_load_snapshot()); }

void DisturbanceMeter::begin(const LoadSnapshot& at) {
  if (open_) throw std::logic_error("DisturbanceMeter::begin: a segment is already open");
  open_ = at;
}

std::optional<double> DisturbanceMeter::end(const LoadSnapshot& at) {
  if (!open_) throw std::logic_error("DisturbanceMeter::end without begin");
  const LoadSnapshot& a = *open_;
  ++segments_;
  wall_s_ += std::max(0.0, at.wall_s - a.wall_s);
  if (a.cpu && at.cpu && a.own_cpu_s && at.own_cpu_s) {
    const double tck = static_cast<double>(at.ticks_per_s > 0 ? at.ticks_per_s : 100);
    busy_s_ += static_cast<double>(delta(at.cpu->busy(), a.cpu->busy())) / tck;
    own_s_ += std::max(0.0, *at.own_cpu_s - *a.own_cpu_s);
    steal_ticks_ += delta(at.cpu->steal, a.cpu->steal);
    total_ticks_ += delta(at.cpu->total(), a.cpu->total());
  } else {
    cpu_unknown_ = true;
  }
  SegmentLoad last;
  last.wall_s = std::max(0.0, at.wall_s - a.wall_s);
  last.num_cpus = at.num_cpus;
  last.ticks_per_s = at.ticks_per_s > 0 ? at.ticks_per_s : 100;
  if (a.cpu && at.cpu && a.own_cpu_s && at.own_cpu_s && last.wall_s > 0) {
    last.available = true;
    const double busy =
        static_cast<double>(delta(at.cpu->busy(), a.cpu->busy())) / static_cast<double>(last.ticks_per_s);
    last.other_cpu_cores = std::max(0.0, (busy - std::max(0.0, *at.own_cpu_s - *a.own_cpu_s)) / last.wall_s);
    last.steal_ticks = delta(at.cpu->steal, a.cpu->steal);
    last.total_ticks = delta(at.cpu->total(), a.cpu->total());
  }
  last_ = last;
  std::optional<double> segment_cpu_s;
  if (a.own_cpu_s && at.own_cpu_s) {
    segment_cpu_s = std::max(0.0, *at.own_cpu_s - *a.own_cpu_s);
    process_cpu_s_ += *segment_cpu_s;
  } else {
    process_cpu_unknown_ = true;
  }
  for (const auto* s : {&a, &at})
    if (s->load_avg) load_max_ = std::max(load_max_.value_or(0.0), (*s->load_avg)[0]);
  if (at.num_cpus > 0) num_cpus_ = at.num_cpus;
  if (at.ticks_per_s > 0) ticks_per_s_ = at.ticks_per_s;
  open_.reset();
  return segment_cpu_s;
}

Disturbance DisturbanceMeter::result(const ContentionThresholds& thresholds) const {
  Disturbance d;
  d.thresholds = thresholds;
  d.segments = segments_;
  d.wall_s = wall_s_;
  d.load_avg_max = load_max_;
  d.num_cpus = num_cpus_;
  if (segments_ > 0 && !process_cpu_unknown_) d.process_cpu_s = process_cpu_s_;
  if (segments_ == 0 || wall_s_ <= 0) {
    d.reason = "host load unknown: no measured segment";
    return d;
  }
  if (cpu_unknown_) {
    // A partial sum would understate the other processes' share, so claim nothing.
    d.reason = "host load unknown: /proc/stat or getrusage unreadable";
    return d;
  }
  d.available = true;
  d.other_cpu_cores = std::max(0.0, (busy_s_ - own_s_) / wall_s_);
  d.steal_fraction = total_ticks_ > 0 ? static_cast<double>(steal_ticks_) / static_cast<double>(total_ticks_) : 0.0;
  d.other_cpu_cores_resolution =
      static_cast<double>(segments_) * std::max(1, num_cpus_) / (static_cast<double>(ticks_per_s_) * wall_s_);
  std::string why;
  if (d.other_cpu_cores - d.other_cpu_cores_resolution >= thresholds.other_cpu_cores)
    why = format("other processes used %.2f cores on average (threshold %.2f)", d.other_cpu_cores,
                 thresholds.other_cpu_cores);
  // Steal is counted in whole ticks of every CPU: over a window of a few ticks one stolen tick is
  // a large fraction (a 4-tick window read "100%" on a VM with 1% steal). So it is judged only
  // over kMinStealWindowTicks, less the one tick per CPU and segment the counters may round off.
  const double steal_quantum = static_cast<double>(segments_ * std::max(1, num_cpus_)) /
                               static_cast<double>(std::max<std::uint64_t>(total_ticks_, 1));
  if (total_ticks_ >= kMinStealWindowTicks && d.steal_fraction - steal_quantum >= thresholds.steal_fraction) {
    if (!why.empty()) why += "; ";
    why += format("steal time was %.1f%% of CPU time (threshold %.1f%%)", d.steal_fraction * 100,
                  thresholds.steal_fraction * 100);
  }
  d.contended = !why.empty();
  d.reason = why;
  return d;
}

void to_json(nlohmann::json& j, const ContentionThresholds& t) {
  j = {{"other_cpu_cores", t.other_cpu_cores}, {"steal_fraction", t.steal_fraction}};
}

void from_json(const nlohmann::json& j, ContentionThresholds& t) {
  t = ContentionThresholds{};
  t.other_cpu_cores = number_field(j, "other_cpu_cores", t.other_cpu_cores);
  t.steal_fraction = number_field(j, "steal_fraction", t.steal_fraction);
}

void to_json(nlohmann::json& j, const Disturbance& d) {
  j = {{"available", d.available},
       {"other_cpu_cores", d.other_cpu_cores},
       {"other_cpu_cores_resolution", d.other_cpu_cores_resolution},
       {"steal_fraction", d.steal_fraction},
       {"load_avg_max", d.load_avg_max ? nlohmann::json(*d.load_avg_max) : nlohmann::json(nullptr)},
       {"num_cpus", d.num_cpus},
       {"segments", d.segments},
       {"wall_s", d.wall_s},
       {"process_cpu_s", d.process_cpu_s ? nlohmann::json(*d.process_cpu_s) : nlohmann::json(nullptr)},
       {"contended", d.contended},
       {"reason", d.reason},
       {"thresholds", d.thresholds}};
  if (d.gpu) j["gpu"] = *d.gpu;
}

void from_json(const nlohmann::json& j, Disturbance& d) {
  d = Disturbance{};
  d.available = j.value("available", false);
  d.other_cpu_cores = j.value("other_cpu_cores", 0.0);
  d.other_cpu_cores_resolution = j.value("other_cpu_cores_resolution", 0.0);
  d.steal_fraction = j.value("steal_fraction", 0.0);
  if (j.contains("load_avg_max") && j.at("load_avg_max").is_number())
    d.load_avg_max = j.at("load_avg_max").get<double>();
  d.num_cpus = j.value("num_cpus", 0);
  d.segments = j.value("segments", 0);
  d.wall_s = j.value("wall_s", 0.0);
  if (j.contains("process_cpu_s") && j.at("process_cpu_s").is_number())
    d.process_cpu_s = j.at("process_cpu_s").get<double>();
  d.contended = j.value("contended", false);
  d.reason = j.value("reason", std::string());
  if (j.contains("thresholds")) d.thresholds = j.at("thresholds").get<ContentionThresholds>();
  if (j.contains("gpu") && j.at("gpu").is_object()) d.gpu = j.at("gpu").get<GpuLoad>();
}

void Disturbance::add_gpu_load(GpuLoad load) {
  if (load.throttled) {
    contended = true;
    reason = (reason.empty() ? "" : reason + "; ") + "GPU thermal or hardware slowdown";
  }
  gpu = std::move(load);
}

void to_json(nlohmann::json& j, const SegmentLoad& l) {
  j = {{"wall_s", l.wall_s},           {"num_cpus", l.num_cpus},
       {"ticks_per_s", l.ticks_per_s}, {"other_cpu_cores", l.other_cpu_cores},
       {"steal_ticks", l.steal_ticks}, {"total_ticks", l.total_ticks}};
  if (l.gpu_throttled) j["gpu_throttled"] = true;
}

void from_json(const nlohmann::json& j, SegmentLoad& l) {
  l = SegmentLoad{};
  l.available = true;
  l.wall_s = j.at("wall_s").get<double>();
  l.num_cpus = j.at("num_cpus").get<int>();
  l.ticks_per_s = j.value("ticks_per_s", 100L);
  l.other_cpu_cores = j.at("other_cpu_cores").get<double>();
  l.steal_ticks = j.at("steal_ticks").get<std::uint64_t>();
  l.total_ticks = j.at("total_ticks").get<std::uint64_t>();
  l.gpu_throttled = j.value("gpu_throttled", false);
}

}  // namespace tb
