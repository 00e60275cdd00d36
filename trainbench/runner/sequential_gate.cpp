#include <trainbench/runner/sequential_gate.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tb {

const char* to_string(SequentialEnd e) {
  switch (e) {
    case SequentialEnd::measuring: return "measuring";
    case SequentialEnd::settled: return "settled";
    case SequentialEnd::budget: return "budget spent";
    case SequentialEnd::refused: return "refused";
    case SequentialEnd::broken: return "broken";
  }
  return "measuring";
}

namespace {

SequentialOptions test_options(const SequentialGateOptions& o, std::size_t scenarios) {
  SequentialOptions t;
  t.alpha = o.alpha / static_cast<double>(std::max<std::size_t>(scenarios, 1));
  t.min_rounds = o.first_look;
  t.max_rounds = o.max_rounds;
  t.batch = o.batch;
  t.spending = o.spending;
  return t;
}

}  // namespace

SequentialGate::SequentialGate(std::vector<double> gates, const SequentialGateOptions& options) : options_(options) {
  if (gates.empty()) throw std::invalid_argument("sequential gate: no scenario to judge");
  for (const double g : gates)
    if (!(g >= 0 && g < 1)) throw std::invalid_argument("sequential gate: a gate must lie in [0%, 100%)");
  if (!(options.max_contended_share >= 0 && options.max_contended_share < 1))
    throw std::invalid_argument("sequential gate: the contended share must lie in [0, 1)");
  // One design for all scenarios: the boundaries depend on alpha and the looks only, and the
  // calibration behind them is the costly part; each scenario's gate is set at its looks.
  design_ = make_sequential_design(test_options(options, gates.size()));
  scenarios_.resize(gates.size());
  contention_.assign(gates.size(), options.contention);
  for (std::size_t i = 0; i < gates.size(); ++i) scenarios_[i].gate = gates[i];
}

int SequentialGate::round_limit() const {
  return options_.max_rounds +
         static_cast<int>(std::floor(options_.max_contended_share * static_cast<double>(options_.max_rounds)));
}

StoppingRule SequentialGate::stopping_rule(StoppingRule base) const {
  base.rounds = options_.first_look;
  base.max_rounds = round_limit();
  base.interleave = true;
  return base;
}

void SequentialGate::look(std::size_t i, bool last) {
  SequentialScenario& s = scenarios_[i];
  const std::vector<double> clean = clean_values(s.ratios, s.rounds);
  SequentialDesign design = design_;
  design.options.gate = s.gate;
  if (last) {
    // A look already taken at this many rounds is not taken again with a laxer boundary: the
    // same data would be judged twice. Its interval stands, and the budget is spent.
    if (s.decision.look > 0 && s.decision.rounds == static_cast<int>(clean.size())) {
      if (s.decision.undecided()) s.decision.verdict = SequentialVerdict::undecided_budget;
      s.decision.next_look = 0;
    } else {
      s.decision = decide(clean, design, true);
    }
  } else {
    SequentialDecision d = decide(clean, design, false);
    // Between looks the last look's interval stands (what the report shows); only the next look moves.
    if (d.look == 0 && s.decision.look > 0) {
      s.decision.next_look = d.next_look;
      return;
    }
    s.decision = d;
  }
  if (s.decision.settled()) s.end = SequentialEnd::settled;
  else if (s.decision.verdict == SequentialVerdict::undecided_budget || last) s.end = SequentialEnd::budget;
}

void SequentialGate::add_round(std::size_t i, int round, const Segment& old_segment, const Segment& new_segment) {
  SequentialScenario& s = scenarios_.at(i);
  if (s.done()) return;
  if (!(old_segment.median_s > 0 && new_segment.median_s > 0 && std::isfinite(old_segment.median_s) &&
        std::isfinite(new_segment.median_s))) {
    s.end = SequentialEnd::broken;
    return;
  }
  s.ratios.push_back(new_segment.median_s / old_segment.median_s);
  s.rounds.push_back(judge_round(round, old_segment.load.value_or(SegmentLoad{}),
                                 new_segment.load.value_or(SegmentLoad{}), contention_[i]));
  s.contention = judge_session(s.rounds, options_.max_rounds, options_.max_contended_share);
  if (s.contention.refused) {
    s.end = SequentialEnd::refused;
    return;
  }
  if (s.rounds.back().contended) {
    // Measured again in its place, up to the round limit.
    if (static_cast<int>(s.rounds.size()) >= round_limit()) look(i, true);
    return;
  }
  look(i, false);
  if (!s.done() && static_cast<int>(s.rounds.size()) >= round_limit()) look(i, true);
}

void SequentialGate::set_contention(std::size_t i, const ContentionThresholds& thresholds) {
  contention_.at(i).thresholds = thresholds;
}

void SequentialGate::stop(std::size_t i) {
  if (!scenarios_.at(i).done()) scenarios_[i].end = SequentialEnd::broken;
}

void SequentialGate::close() {
  for (std::size_t i = 0; i < scenarios_.size(); ++i)
    if (!scenarios_[i].done()) look(i, true);
}

SequentialRecord sequential_record(const SequentialGate& gate, std::size_t i) {
  const SequentialScenario& s = gate.scenario(i);
  const SequentialDecision& d = s.decision;
  SequentialRecord r;
  r.verdict = d.settled() ? to_string(d.verdict) : "undecided";
  r.end = to_string(s.end);
  r.faster = d.faster;
  r.rounds = d.rounds;
  r.measured = static_cast<int>(s.rounds.size());
  r.dropped = s.contention.dropped;
  r.looks = d.look;
  r.ratio = d.ratio;
  r.low = d.low;
  r.high = d.high;
  r.valid = d.valid;
  r.gate_pct = s.gate * 100;
  r.noise_pct = d.noise * 100;
  if (!d.settled() && d.valid) {
    SequentialDesign design = gate.design();
    design.options.gate = s.gate;
    const double n = rounds_to_settle(d, design);
    if (std::isfinite(n)) r.rounds_to_settle = std::ceil(n);
  }
  if (s.contention.dropped > 0 || s.contention.refused) r.contention = s.contention.summary();
  return r;
}

}  // namespace tb
