// `ab`'s gate measured until it is answered: the rounds of a paired session fed, one by one, to
// the sequential test (measure/sequential_test.hpp) and the contention rule for paired rounds
// (measure/contended_rounds.hpp). The session (trainbench/cli/ab_command.cpp) asks after every
// segment pair whether a scenario still needs rounds; the schedule measures it until its verdict
// is settled, its budget of rounds or time is spent, or its contended rounds exceed their share.
//
// For each gated scenario: the round's paired ratio NEW/OLD is the ratio of the two segments'
// median step times; a round in which either segment was contended is dropped (and the schedule
// measures another in its place); the clean ratios are looked at only at the design's planned
// looks, so the repeated intervals keep their coverage. The k scenarios of a session share one
// design at alpha / k, as `compare`'s Bonferroni gate does: the chance of a false "slower"
// anywhere in an A/A session stays within the nominal level.
//
// Pure and torch-free: tests drive it with scripted segments.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/measure/contended_rounds.hpp>
#include <trainbench/measure/sequential_test.hpp>
#include <trainbench/results/results.hpp>

namespace tb {

struct SequentialGateOptions {
  double alpha = 0.05;  // family-wise, two-sided, over all gated scenarios and looks
  int first_look = 3;   // rounds before the first look (>= 3)
  int max_rounds = 30;  // clean rounds at the last look (>= first_look)
  int batch = 3;        // rounds between looks
  AlphaSpending spending = AlphaSpending::obrien_fleming;
  RoundContentionOptions contention;
  double max_contended_share = kMaxContendedShare;
};

// Why a scenario needs no more rounds.
enum class SequentialEnd {
  measuring,  // not yet
  settled,    // slower or not slower
  budget,     // --max-rounds or --time-budget spent: undecided, with its interval
  refused,    // contended rounds exceeded their share of the budget
  broken,     // a side stopped measuring it (failed, crashed): compare reports it
};
const char* to_string(SequentialEnd e);  // "measuring", "settled", "budget spent", "refused", "broken"

struct SequentialScenario {
  double gate = 0;                      // the slowdown it is judged against (fraction)
  std::vector<double> ratios;           // NEW/OLD of every round measured, in order
  std::vector<RoundContention> rounds;  // each round's contention, same order
  SequentialDecision decision;          // the last look's (verdict undecided before the first)
  PairedContention contention;          // over the rounds so far
  SequentialEnd end = SequentialEnd::measuring;
  bool done() const { return end != SequentialEnd::measuring; }
};

class SequentialGate {
 public:
  // gates[i]: scenario i's slowdown gate as a fraction (0 < gate < 1). std::invalid_argument for
  // options out of range (sequential_test.hpp's, and an empty list).
  SequentialGate(std::vector<double> gates, const SequentialGateOptions& options);

  // The schedule's rule: rounds = the first look; past it a scenario goes on while not done(),
  // up to max_rounds clean rounds plus the contended rounds the budget allows.
  StoppingRule stopping_rule(StoppingRule base) const;

  // Scenario i's segments of one round in OLD and NEW. A round without both medians (a side
  // stopped) ends the scenario as broken.
  void add_round(std::size_t i, int round, const Segment& old_segment, const Segment& new_segment);
  // Scenario i's contention thresholds (the matrix's "contention"; host_load.hpp's defaults until
  // set): its rounds are judged by them from the next add_round on.
  void set_contention(std::size_t i, const ContentionThresholds& thresholds);
  // A side stopped measuring scenario i (it failed or ended): no verdict from this gate.
  void stop(std::size_t i);
  // Nothing more will be measured (a time budget ran out, or the schedule is over): every scenario
  // still measuring takes its last look now with the clean rounds it has.
  void close();

  std::size_t size() const { return scenarios_.size(); }
  bool done(std::size_t i) const { return scenarios_[i].done(); }
  const SequentialScenario& scenario(std::size_t i) const { return scenarios_[i]; }
  const SequentialDesign& design() const { return design_; }
  const SequentialGateOptions& options() const { return options_; }
  // The most rounds a scenario can measure: max_rounds plus the contended ones allowed.
  int round_limit() const;

 private:
  void look(std::size_t i, bool last);
  SequentialGateOptions options_;
  SequentialDesign design_;
  std::vector<SequentialScenario> scenarios_;
  std::vector<RoundContentionOptions> contention_;  // per scenario
};

// What comparison.json records of scenario i's verdict (measure/sequential_test.hpp).
SequentialRecord sequential_record(const SequentialGate& gate, std::size_t i);

}  // namespace tb
