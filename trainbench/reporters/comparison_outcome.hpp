// The CI verdict of each scenario of a run-vs-run comparison, as every CI-facing output states it
// (JUnit XML, the Markdown summary): one rule, so the outputs never disagree about a scenario.
//
//   failed:  slower beyond the gate (regression), or ok in OLD and broken or missing in NEW
//   skipped: not judged: contended measurements, no interval (fewer than 3 segments), a
//            sequential verdict still undecided after its budget, or not compared (not ok on
//            both sides, or on one side only)
//   passed:  everything else
#pragma once
#include <string>
#include <vector>

#include <trainbench/measure/comparison.hpp>

namespace tb {

struct ScenarioOutcome {
  enum class Kind { passed, failed, skipped };
  std::string id;
  Kind kind = Kind::passed;
  std::string reason;   // why it failed or was skipped; empty when passed
  std::string figures;  // "old 10.000 ms, new 11.000 ms per step, change +10.0%, speedup ..." (compared only)
};

// "slower after 9 rounds", "not slower after 15 rounds (2 contended dropped)".
std::string sequential_rounds_text(const SequentialRecord& r);

// One outcome per scenario of `c`, in its order, then one per scenario missing in NEW.
std::vector<ScenarioOutcome> scenario_outcomes(const RunComparison& c);

}  // namespace tb
