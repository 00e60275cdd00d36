// Host-load meter on fixture /proc text and hand-made snapshots (quiet, loaded, steal, several
// segments, unreadable), plus a smoke check of the real readers on this machine.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include <trainbench/measure/host_load.hpp>

namespace tb {
namespace {

constexpr const char* kProcStat =
    "cpu  28864 0 9486 3131499 794 0 144 907 0 0\n"
    "cpu0 11717 0 2679 1570758 211 0 21 420 0 0\n"
    "cpu1 17146 0 6806 1560741 582 0 123 487 0 0\n"
    "intr 1234 5 6\n"
    "ctxt 99\n";

// A reading at `wall` seconds: busy and idle ticks (100 per second), steal ticks, own CPU s.
LoadSnapshot snap(double wall, std::uint64_t busy, std::uint64_t idle, double own, std::uint64_t steal = 0,
                  double load1 = 0.5) {
  LoadSnapshot s;
  s.wall_s = wall;
  CpuTimes t;
  t.user = busy;
  t.idle = idle;
  t.steal = steal;
  s.cpu = t;
  s.own_cpu_s = own;
  s.load_avg = std::array<double, 3>{load1, load1, load1};
  s.ticks_per_s = 100;
  s.num_cpus = 4;
  return s;
}

TEST(ProcStat, ParsesTheAggregateLine) {
  const auto t = parse_proc_stat(kProcStat);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->user, 28864u);
  EXPECT_EQ(t->system, 9486u);
  EXPECT_EQ(t->idle, 3131499u);
  EXPECT_EQ(t->iowait, 794u);
  EXPECT_EQ(t->softirq, 144u);
  EXPECT_EQ(t->steal, 907u);
  EXPECT_EQ(t->busy(), 28864u + 9486u + 144u);
  EXPECT_EQ(t->total(), 28864u + 9486u + 144u + 3131499u + 794u + 907u);
}

TEST(ProcStat, OldKernelsWithoutStealReadAsZero) {
  const auto t = parse_proc_stat("cpu 10 20 30 40\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->busy(), 60u);
  EXPECT_EQ(t->steal, 0u);
  EXPECT_EQ(t->total(), 100u);
}

TEST(ProcStat, FindsTheLineAfterOthers) {
  const auto t = parse_proc_stat("intr 1\ncpu  1 2 3 4 5 6 7 8\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->steal, 8u);
}

TEST(ProcStat, MalformedOrMissingIsNullopt) {
  EXPECT_FALSE(parse_proc_stat("").has_value());
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4\n").has_value());
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 x 4\n").has_value());
  EXPECT_FALSE(parse_proc_stat("cpu 1 2\n").has_value());
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 -3 4\n").has_value());
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 3 999999999999999999999999\n").has_value());  // overflow
}

TEST(LoadAvg, ParsesThreeAverages) {
  const auto a = parse_loadavg("1.87 0.91 0.37 3/98 6011\n");
  ASSERT_TRUE(a.has_value());
  EXPECT_DOUBLE_EQ((*a)[0], 1.87);
  EXPECT_DOUBLE_EQ((*a)[1], 0.91);
  EXPECT_DOUBLE_EQ((*a)[2], 0.37);
  EXPECT_FALSE(parse_loadavg("").has_value());
  EXPECT_FALSE(parse_loadavg("1.0 nope").has_value());
}

TEST(Rusage, SumsUserAndSystem) { EXPECT_DOUBLE_EQ(rusage_seconds(1, 500000, 2, 250000), 3.75); }

TEST(DisturbanceMeter, QuietIntervalIsNotContended) {
  DisturbanceMeter m;
  // 2 s on 4 CPUs = 800 ticks; 202 busy ticks of which this process used 2.0 s.
  m.begin(snap(100, 1000, 5000, 10.0));
  m.end(snap(102, 1202, 5598, 12.0));
  const auto d = m.result();
  EXPECT_TRUE(d.available);
  EXPECT_NEAR(d.other_cpu_cores, 0.01, 1e-9);
  EXPECT_DOUBLE_EQ(d.steal_fraction, 0.0);
  EXPECT_DOUBLE_EQ(d.wall_s, 2.0);
  EXPECT_EQ(d.segments, 1);
  EXPECT_EQ(d.num_cpus, 4);
  EXPECT_FALSE(d.contended);
  EXPECT_EQ(d.reason, "");
}

TEST(DisturbanceMeter, LoadedIntervalIsContendedWithReason) {
  DisturbanceMeter m;
  // 2 s: 470 busy ticks (4.7 CPU s), 1.0 s of them ours -> 3.7 s / 2 s = 1.85 cores.
  m.begin(snap(100, 1000, 5000, 10.0, 0, 0.8));
  m.end(snap(102, 1470, 5330, 11.0, 0, 2.9));
  const auto d = m.result();
  EXPECT_TRUE(d.available);
  EXPECT_NEAR(d.other_cpu_cores, 1.85, 1e-9);
  EXPECT_TRUE(d.contended);
  EXPECT_EQ(d.reason, "other processes used 1.85 cores on average (threshold 0.25)");
  ASSERT_TRUE(d.load_avg_max.has_value());
  EXPECT_DOUBLE_EQ(*d.load_avg_max, 2.9);
}

// A segment of a few milliseconds spans one or two clock ticks: a tick of someone else's work
// reads as cores of load. Such a reading is never called contended.
TEST(DisturbanceMeter, SegmentsTooShortToTellAreNotContended) {
  DisturbanceMeter m;
  // 20 ms on 4 CPUs, 100 ticks/s: 3 busy ticks, none of them ours -> 1.5 "cores", +-2 cores.
  m.begin(snap(0, 1000, 5000, 10.0, 0));
  m.end(snap(0.02, 1003, 5005, 10.0, 0));
  const auto d = m.result();
  EXPECT_NEAR(d.other_cpu_cores, 1.5, 1e-9);
  EXPECT_NEAR(d.other_cpu_cores_resolution, 2.0, 1e-9);
  EXPECT_FALSE(d.contended) << d.reason;
}

TEST(DisturbanceMeter, StealIsContended) {
  DisturbanceMeter m;
  // 1 s on 4 CPUs: 400 ticks, 40 of them stolen; our process did all the busy work.
  m.begin(snap(0, 0, 0, 0.0, 0));
  m.end(snap(1, 100, 260, 1.0, 40));
  const auto d = m.result();
  EXPECT_NEAR(d.steal_fraction, 0.10, 1e-12);
  EXPECT_NEAR(d.other_cpu_cores, 0.0, 1e-12);
  EXPECT_TRUE(d.contended);
  EXPECT_EQ(d.reason, "steal time was 10.0% of CPU time (threshold 5.0%)");
}

// A window of a few ticks cannot carry a steal fraction: one stolen tick of 4 read "100%" on a VM
// whose steal was 1% (the ab session's OLD arm was refused for it). Judged from 100 ticks on,
// less the tick per CPU and segment the counters round off.
TEST(DisturbanceMeter, StealOverAFewTicksIsNotJudged) {
  DisturbanceMeter m;
  m.begin(snap(0, 0, 0, 0.0, 0));
  m.end(snap(0.01, 0, 0, 0.0, 4));  // 4 ticks, all of them steal
  const auto d = m.result();
  EXPECT_NEAR(d.steal_fraction, 1.0, 1e-12);  // reported as read
  EXPECT_FALSE(d.contended) << d.reason;
  // 100 ticks on 4 CPUs, 8 stolen: 8% less the 4% rounding is below the 5% threshold.
  DisturbanceMeter edge;
  edge.begin(snap(0, 0, 0, 0.0, 0));
  edge.end(snap(0.25, 12, 80, 0.12, 8));
  EXPECT_FALSE(edge.result().contended) << edge.result().reason;
}

TEST(DisturbanceMeter, OwnUsageAboveSystemBusyClampsToZero) {
  DisturbanceMeter m;  // tick sampling can undercount against getrusage's exact time
  m.begin(snap(0, 0, 0, 0.0));
  m.end(snap(1, 98, 302, 1.0));
  EXPECT_DOUBLE_EQ(m.result().other_cpu_cores, 0.0);
}

TEST(DisturbanceMeter, SegmentsAccumulateAndGapsAreNotCounted) {
  DisturbanceMeter m;
  // Segment 1: 1 s, other processes 0.5 CPU s.
  m.begin(snap(0, 0, 0, 0.0));
  m.end(snap(1, 150, 250, 1.0));
  // A gap with heavy other load between segments belongs to no segment.
  // Segment 2: 3 s, nothing else running.
  m.begin(snap(50, 9000, 9000, 20.0));
  m.end(snap(53, 9300, 9900, 23.0));
  const auto d = m.result();
  EXPECT_EQ(d.segments, 2);
  EXPECT_DOUBLE_EQ(d.wall_s, 4.0);
  EXPECT_NEAR(d.other_cpu_cores, 0.5 / 4.0, 1e-9);
  ASSERT_TRUE(d.process_cpu_s.has_value());
  EXPECT_DOUBLE_EQ(*d.process_cpu_s, 1.0 + 3.0);  // own CPU of the two segments, not of the gap
  EXPECT_FALSE(d.contended);                      // 0.125 < 0.25 averaged over the measured time
  // The same load concentrated in one short segment would be contended on its own.
  DisturbanceMeter one;
  one.begin(snap(0, 0, 0, 0.0));
  one.end(snap(1, 150, 250, 1.0));
  EXPECT_TRUE(one.result().contended);
}

TEST(DisturbanceMeter, ThresholdsAreTheCallers) {
  DisturbanceMeter m;
  m.begin(snap(0, 0, 0, 0.0));
  m.end(snap(1, 150, 250, 1.0));
  ContentionThresholds loose;
  loose.other_cpu_cores = 1.0;
  const auto d = m.result(loose);
  EXPECT_FALSE(d.contended);
  EXPECT_DOUBLE_EQ(d.thresholds.other_cpu_cores, 1.0);
  EXPECT_DOUBLE_EQ(ContentionThresholds{}.other_cpu_cores, 0.25);
  EXPECT_DOUBLE_EQ(ContentionThresholds{}.steal_fraction, 0.05);
}

TEST(DisturbanceMeter, UnreadableProcDegradesToUnknown) {
  DisturbanceMeter m;
  auto a = snap(0, 0, 0, 0.0);
  auto b = snap(1, 400, 0, 0.0);  // would be 4 cores of other load, if it could be believed
  a.cpu.reset();
  b.cpu.reset();
  b.load_avg.reset();
  m.begin(a);
  m.end(b);
  const auto d = m.result();
  EXPECT_FALSE(d.available);
  EXPECT_FALSE(d.contended);
  EXPECT_NE(d.reason.find("unknown"), std::string::npos) << d.reason;
  EXPECT_EQ(d.segments, 1);
  EXPECT_EQ(d.process_cpu_s, 0.0);  // getrusage still read: the process's own CPU is known
  DisturbanceMeter no_rusage;
  a.own_cpu_s.reset();
  no_rusage.begin(a);
  no_rusage.end(b);
  EXPECT_FALSE(no_rusage.result().process_cpu_s.has_value());
}

TEST(DisturbanceMeter, NoSegmentIsUnknown) {
  const auto d = DisturbanceMeter{}.result();
  EXPECT_FALSE(d.available);
  EXPECT_FALSE(d.contended);
  EXPECT_FALSE(d.load_avg_max.has_value());
}

TEST(DisturbanceMeter, MisuseThrows) {
  DisturbanceMeter m;
  EXPECT_THROW(m.end(snap(1, 0, 0, 0)), std::logic_error);
  m.begin(snap(0, 0, 0, 0));
  EXPECT_TRUE(m.in_segment());
  EXPECT_THROW(m.begin(snap(0, 0, 0, 0)), std::logic_error);
}

TEST(Disturbance, JsonRoundTrip) {
  DisturbanceMeter m;
  m.begin(snap(100, 1000, 5000, 10.0, 0, 0.8));
  m.end(snap(102, 1470, 5330, 11.0, 0, 2.9));
  const auto d = m.result();
  const nlohmann::json j = d;
  for (const char* key : {"available", "other_cpu_cores", "steal_fraction", "load_avg_max", "num_cpus", "segments",
                          "wall_s", "process_cpu_s", "contended", "reason", "thresholds"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.at("thresholds").at("other_cpu_cores"), 0.25);
  EXPECT_EQ(j.at("thresholds").at("steal_fraction"), 0.05);
  const auto back = j.get<Disturbance>();
  EXPECT_EQ(back.contended, d.contended);
  EXPECT_EQ(back.reason, d.reason);
  EXPECT_DOUBLE_EQ(back.other_cpu_cores, d.other_cpu_cores);
  EXPECT_EQ(back.load_avg_max, d.load_avg_max);
  EXPECT_EQ(back.process_cpu_s, 1.0);
  EXPECT_EQ(back.segments, 1);
  EXPECT_EQ(nlohmann::json(back), j);

  const nlohmann::json unknown = DisturbanceMeter{}.result();
  EXPECT_TRUE(unknown.at("load_avg_max").is_null());
  EXPECT_FALSE(unknown.at("available").get<bool>());
}

// The real readers on this machine: sane values, no timing claims.
TEST(LoadSnapshotSmoke, RealSystem) {
#ifndef __linux__
  GTEST_SKIP() << "/proc is Linux-only; elsewhere the snapshot is all unknown by design";
#endif
  const auto s = take_load_snapshot();
  ASSERT_TRUE(s.cpu.has_value()) << "/proc/stat unreadable";
  EXPECT_GT(s.cpu->total(), 0u);
  EXPECT_LE(s.cpu->busy(), s.cpu->total());
  ASSERT_TRUE(s.own_cpu_s.has_value());
  EXPECT_GE(*s.own_cpu_s, 0.0);
  ASSERT_TRUE(s.load_avg.has_value());
  for (double a : *s.load_avg) EXPECT_GE(a, 0.0);
  EXPECT_GE(s.num_cpus, 1);
  EXPECT_GT(s.ticks_per_s, 0);
  EXPECT_GT(s.wall_s, 0.0);

  DisturbanceMeter m;
  m.begin();
  volatile double x = 0;
  for (int i = 0; i < 2000000; ++i) x = x + std::sqrt(static_cast<double>(i));
  m.end();
  const auto d = m.result();
  EXPECT_TRUE(d.available) << d.reason;
  EXPECT_EQ(d.segments, 1);
  EXPECT_GE(d.other_cpu_cores, 0.0);
  EXPECT_GE(d.steal_fraction, 0.0);
  EXPECT_LE(d.steal_fraction, 1.0);
  EXPECT_TRUE(d.load_avg_max.has_value());
}

}  // namespace
}  // namespace tb
