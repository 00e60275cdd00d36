#include <trainbench/runner/bisect_search.hpp>

#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>

namespace tb {

const char* to_string(BisectVerdict v) {
  switch (v) {
    case BisectVerdict::good: return "good";
    case BisectVerdict::bad: return "bad";
    case BisectVerdict::skip: return "skip";
  }
  return "?";
}

int bisect_steps_needed(std::size_t candidates) {
  int steps = 0;
  for (std::size_t span = 1; span < candidates; span *= 2) ++steps;
  return steps;
}

BisectOutcome bisect_search(std::size_t candidates, const std::function<BisectVerdict(std::size_t)>& judge,
                            int max_steps) {
  if (candidates == 0) throw std::invalid_argument("bisect_search: no candidates");
  if (max_steps < 0) throw std::invalid_argument("bisect_search: max_steps < 0");
  // Signed, so that GOOD is -1.
  std::int64_t lo = -1, hi = static_cast<std::int64_t>(candidates) - 1;
  std::set<std::int64_t> skipped;
  BisectOutcome out;
  while (hi - lo > 1) {
    // The untested candidate in (lo, hi) nearest the middle; ties go to the older one.
    const double middle = (static_cast<double>(lo) + static_cast<double>(hi)) / 2;
    std::optional<std::int64_t> pick;
    for (std::int64_t i = lo + 1; i < hi; ++i) {
      if (skipped.count(i)) continue;
      const auto distance = [&](std::int64_t k) { return std::abs(static_cast<double>(k) - middle); };
      if (!pick || distance(i) < distance(*pick)) pick = i;
    }
    if (!pick) break;  // everything between lo and hi was skipped
    if (static_cast<int>(out.steps.size()) >= max_steps) {
      out.out_of_steps = true;
      break;
    }
    const BisectVerdict v = judge(static_cast<std::size_t>(*pick));
    out.steps.push_back({static_cast<std::size_t>(*pick), v});
    if (v == BisectVerdict::good) lo = *pick;
    else if (v == BisectVerdict::bad) hi = *pick;
    else skipped.insert(*pick);
  }
  if (hi - lo == 1) out.first_bad = static_cast<std::size_t>(hi);
  out.range_begin = static_cast<std::size_t>(lo + 1);
  out.range_end = static_cast<std::size_t>(hi);
  return out;
}

}  // namespace tb
