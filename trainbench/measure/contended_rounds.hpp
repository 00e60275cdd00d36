// Contention in a paired session: which rounds to drop, and when to refuse the session.
//
// An unpaired `run` or `compare` cannot tell a loaded machine from a slower build, so it refuses
// a contended scenario (host_load.hpp). In `ab` each round pairs OLD and NEW measured back to
// back; a burst of load or steal in either arm's segment spoils that round's ratio and nothing
// else. So a paired session drops a contended round (either arm) and measures another in its
// place, and refuses only when contended rounds exceed a share of its budget of rounds (a third
// by default: then the machine, not the code, decides what gets measured).
//
// Each arm is judged on its own segment, with the thresholds of host_load.hpp (other processes
// >= 0.25 cores, steal >= 5% of CPU time, a throttled GPU), but a fraction is judged only over
// a window long enough to mean something: /proc/stat counts whole clock ticks, so over a window
// of a few ticks one tick of steal reads as 20-100%. Below min_window_ticks (all CPUs' ticks
// together) the steal fraction is "not judged", and above it the quantisation (one tick per
// CPU) is subtracted before the threshold, as host_load.hpp already does for other processes.
//
// Pure: the caller reads the figures (a DisturbanceMeter per arm and segment) and acts on the
// verdicts.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <trainbench/measure/host_load.hpp>

namespace tb {

// An arm's figures from a DisturbanceMeter's result over that one segment. Disturbance keeps the
// steal fraction, not the ticks, so they are recovered from the wall time, the CPUs and USER_HZ
// (exact up to a tick per CPU).
SegmentLoad arm_load(const Disturbance& d, long ticks_per_s = 100);

struct RoundContentionOptions {
  ContentionThresholds thresholds;  // host_load.hpp's documented defaults
  // Steal is judged only over at least this many ticks of all CPUs together: 100 ticks are one
  // CPU-second (half a second of a 2-vCPU VM), where one tick of quantisation per CPU is 2%.
  std::uint64_t min_window_ticks = 100;
};

struct ArmContention {
  bool contended = false;
  bool steal_judged = false;  // the window was long enough to judge steal
  std::string reason;         // why contended, e.g. "steal 12.0% of CPU time over 1.4 s (threshold 5.0%)"
};
ArmContention judge_arm(const SegmentLoad& arm, const RoundContentionOptions& options = {});

struct RoundContention {
  int round = 0;           // the schedule's 0-based round (reports say round + 1)
  bool contended = false;  // either arm
  std::string reason;      // "OLD: ...; NEW: ..." (the contended arms only)
};
RoundContention judge_round(int round, const SegmentLoad& old_arm, const SegmentLoad& new_arm,
                            const RoundContentionOptions& options = {});

// The session rule. budget_rounds: the most clean rounds the session may use (the sequential
// test's max_rounds). A contended round is dropped and measured again; the session is refused
// once its contended rounds exceed max_contended_share of the budget (floor(share * budget)
// contended rounds are allowed: 10 of a budget of 30, 1 of 3), so it never measures more than
// budget + that many rounds.
inline constexpr double kMaxContendedShare = 1.0 / 3.0;

struct PairedContention {
  int measured = 0;  // rounds judged
  int clean = 0;     // rounds whose ratios count
  int dropped = 0;   // contended rounds, left out
  int allowed = 0;   // contended rounds the budget allows
  bool refused = false;
  std::vector<int> dropped_rounds;   // in order
  std::vector<std::string> reasons;  // "round 4: NEW: steal ...", one per dropped round
  // For the report: "2 of 14 rounds dropped (contended): round 4: NEW: ...; round 9: OLD: ...".
  std::string summary() const;
};
// std::invalid_argument when budget_rounds < 1 or the share is outside [0, 1).
PairedContention judge_session(std::span<const RoundContention> rounds, int budget_rounds,
                               double max_contended_share = kMaxContendedShare);

// The values of the clean rounds: values[j] belongs to rounds[j] (sizes must match, else
// std::invalid_argument). What the sequential test (sequential_test.hpp) is given.
std::vector<double> clean_values(std::span<const double> values, std::span<const RoundContention> rounds);

}  // namespace tb
