// What else ran on the host while a scenario was measured. A run slowed 12-24x by another
// process reads as regressions unless the results say why, so this meter records, over the
// measured segments of one scenario, the CPU time that *other* processes consumed ((all CPUs'
// busy time from /proc/stat) - (this process's own CPU time from getrusage)), the hypervisor's
// steal time and the 1-minute load average, and marks the scenario `contended` past a
// documented threshold.
//
// Linux only in substance: elsewhere, or when /proc is unreadable, every reading degrades to
// "unknown" (Disturbance::available = false, never contended) instead of throwing.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <trainbench/measure/gpu_monitor.hpp>

namespace tb {

// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ). guest and guest_nice are
// already included in user and nice by the kernel, so they are not kept.
struct CpuTimes {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;

  // Every tick of every CPU, steal included.
  std::uint64_t total() const;
  // Ticks some process or the kernel ran: user+nice+system+irq+softirq. Idle and iowait are a
  // CPU doing nothing; steal is time the hypervisor gave to another guest, reported on its own.
  std::uint64_t busy() const;
};

// The first line starting "cpu " of /proc/stat text; nullopt when absent or malformed. Older
// kernels without steal (or irq/softirq) columns read as 0 for the missing fields.
std::optional<CpuTimes> parse_proc_stat(std::string_view text);

// The three load averages (1, 5, 15 minutes) of /proc/loadavg text; nullopt when malformed.
std::optional<std::array<double, 3>> parse_loadavg(std::string_view text);

// CPU seconds of a getrusage() result: user + system, from its two timevals' fields.
double rusage_seconds(long user_s, long user_us, long system_s, long system_us);

// One reading of everything the meter needs. Fields are nullopt when they could not be read.
struct LoadSnapshot {
  double wall_s = 0;                              // monotonic clock, seconds
  std::optional<CpuTimes> cpu;                    // /proc/stat aggregate line
  std::optional<double> own_cpu_s;                // getrusage(RUSAGE_SELF): all threads, no children
  std::optional<std::array<double, 3>> load_avg;  // /proc/loadavg
  long ticks_per_s = 100;                         // sysconf(_SC_CLK_TCK)
  int num_cpus = 0;                               // online CPUs, 0 unknown
};

// Reads the live system; never throws.
LoadSnapshot take_load_snapshot();

// CPU seconds (user + system) of process `pid` and all its descendants, the ones they already
// reaped included (/proc/PID/stat's utime, stime, cutime, cstime); nullopt when /proc cannot
// tell. A Python loop runs in a worker process with data-loader processes of its own: their CPU
// is the scenario's own, not another process's (add it to LoadSnapshot::own_cpu_s).
std::optional<double> process_tree_cpu_seconds(int pid);

// The fields after a /proc/PID/stat line's "(comm)": the parent's pid and utime + stime +
// cutime + cstime in ticks; nullopt when malformed.
struct ProcStat {
  int ppid = 0;
  std::uint64_t ticks = 0;
};
std::optional<ProcStat> parse_proc_pid_stat(std::string_view text);

// When a scenario counts as contended. The defaults are the documented contract:
//  - other processes used >= 0.25 CPU cores on average over the measured segments (a quarter
//    of a core taken from a training loop shows up as noise well past a 5% comparison
//    threshold on a small machine; a quiet Linux host idles at a few hundredths of a core), or
//  - steal >= 5% of all CPU time (the VM's host is giving our vCPUs to someone else).
// The load average is recorded but never decides: it counts this process's own threads and
// lags by a minute.
struct ContentionThresholds {
  static constexpr double kDefaultOtherCpuCores = 0.25;
  static constexpr double kDefaultStealFraction = 0.05;
  double other_cpu_cores = kDefaultOtherCpuCores;
  double steal_fraction = kDefaultStealFraction;
};

// What disturbed a scenario's measured segments: the host's load (this meter) and, where GPUs
// were sampled, their clocks (gpu_monitor.hpp). results.json's metrics.disturbance.
struct Disturbance {
  bool available = false;      // false: /proc/stat or getrusage unreadable, or no segment measured
  double other_cpu_cores = 0;  // (system busy - own CPU) / wall, >= 0
  // How far other_cpu_cores can be off from /proc/stat counting whole clock ticks: one tick per
  // CPU per segment, over the measured wall time. A segment of milliseconds says nothing about
  // other processes; contended needs other_cpu_cores - resolution past the threshold.
  double other_cpu_cores_resolution = 0;
  double steal_fraction = 0;           // steal / all ticks, in [0, 1]
  std::optional<double> load_avg_max;  // highest 1-minute load average seen at a segment edge
  int num_cpus = 0;
  int segments = 0;
  double wall_s = 0;  // measured wall time, all segments together
  // This process's CPU time (getrusage: user + system, every thread) over the measured
  // segments; nullopt when getrusage failed at some edge. Divided by the measured steps, it is
  // the CPU time per step that gbench.json reports as cpu_time.
  std::optional<double> process_cpu_s;
  bool contended = false;  // never true when !available
  // Why contended ("other processes used 1.85 cores on average (threshold 0.25)"), or why
  // unavailable; empty for a quiet scenario.
  std::string reason;
  ContentionThresholds thresholds;
  std::optional<GpuLoad> gpu;  // absent when no GPU was sampled

  // Records the GPUs' load: a GPU slowed by heat or a hardware brake measures the cooling, not
  // the code, so a throttled one makes the scenario contended, with the reason appended.
  void add_gpu_load(GpuLoad load);
};

// What one segment saw, as the counters read (for judging segments one by one: a paired session
// drops a round whose segment was contended, measure/contended_rounds.hpp). Kept as raw ticks,
// not fractions, so a reader can tell a fraction of a handful of ticks from a meaningful one.
struct SegmentLoad {
  bool available = false;  // false: the host's load was unknown (never contended)
  double wall_s = 0;       // the segment's measured wall time
  int num_cpus = 0;
  long ticks_per_s = 100;         // USER_HZ
  double other_cpu_cores = 0;     // CPU time of other processes / wall time
  std::uint64_t steal_ticks = 0;  // /proc/stat steal over the segment, all CPUs
  std::uint64_t total_ticks = 0;  // /proc/stat every column over the segment, all CPUs
  bool gpu_throttled = false;
};
// {"wall_s","num_cpus","ticks_per_s","other_cpu_cores","steal_ticks","total_ticks"} and
// "gpu_throttled" when true; only an available load is written (a missing one reads unavailable).
void to_json(nlohmann::json& j, const SegmentLoad& l);
void from_json(const nlohmann::json& j, SegmentLoad& l);

// Accumulates over many disjoint begin()/end() intervals (the runner measures a scenario in
// several interleaved segments; time between them belongs to other scenarios and is not
// counted). Not thread-safe; one meter per scenario.
class DisturbanceMeter {
 public:
  void begin();                        // take_load_snapshot() now
  void begin(const LoadSnapshot& at);  // a given reading (tests, or a snapshot shared with others)
  // Closes the segment; returns this process's CPU seconds over it (nullopt when unreadable),
  // what a segment's CPU time per step is made of. std::logic_error when no segment is open.
  std::optional<double> end();
  std::optional<double> end(const LoadSnapshot& at);
  // Drops the open segment, if any: its steps were discarded (an interrupted segment).
  void cancel() { open_.reset(); }

  bool in_segment() const { return open_.has_value(); }
  // The last closed segment's own figures (available = false when /proc/stat or getrusage was
  // unreadable at its edges); nullopt before the first end().
  const std::optional<SegmentLoad>& last_segment() const { return last_; }
  int segments() const { return segments_; }
  Disturbance result(const ContentionThresholds& thresholds = {}) const;

 private:
  std::optional<LoadSnapshot> open_;
  int segments_ = 0;
  bool cpu_unknown_ = false;  // some segment lacked /proc/stat or getrusage at an edge
  double wall_s_ = 0;
  double busy_s_ = 0;
  double own_s_ = 0;
  double process_cpu_s_ = 0;  // own CPU alone, known even where /proc/stat is not
  bool process_cpu_unknown_ = false;
  std::uint64_t steal_ticks_ = 0;
  std::uint64_t total_ticks_ = 0;
  std::optional<double> load_max_;
  int num_cpus_ = 0;
  long ticks_per_s_ = 100;
  std::optional<SegmentLoad> last_;
};

// {"other_cpu_cores","steal_fraction"}
void to_json(nlohmann::json& j, const ContentionThresholds& t);
void from_json(const nlohmann::json& j, ContentionThresholds& t);
// {"available","other_cpu_cores","other_cpu_cores_resolution","steal_fraction","load_avg_max"
//  (null unknown),"num_cpus","segments","wall_s","process_cpu_s" (null unknown),"contended",
//  "reason","thresholds"} and "gpu" (gpu_monitor.hpp's GpuLoad) when sampled.
void to_json(nlohmann::json& j, const Disturbance& d);
void from_json(const nlohmann::json& j, Disturbance& d);

}  // namespace tb
