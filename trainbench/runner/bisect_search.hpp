// Which commit made it slower: binary search over the commits between a good one and a bad one,
// with the judge passed in (trainbench bisect measures each candidate against the good commit
// with `ab`; tests pass a table). Pure: no git, no torch.
//
// Contract: candidates 0 .. n-1 are the commits after GOOD, oldest first, and candidate n-1 is
// BAD, known slower (the caller checked it first). GOOD itself is known good. The search keeps
// the last known good (lo, -1 = GOOD) and the first known bad (hi); it asks about the untested,
// unskipped candidate nearest the middle of (lo, hi). A "skip" (the candidate could not be built
// or judged) is never asked again; the search goes on around it, as `git bisect skip` does. It
// ends when lo and hi are neighbours (hi is the first bad commit), when every candidate between
// them was skipped (the culprit is one of them: not distinguishable further), or after
// max_steps questions.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace tb {

enum class BisectVerdict { good, bad, skip };
const char* to_string(BisectVerdict v);

struct BisectStep {
  std::size_t candidate = 0;
  BisectVerdict verdict = BisectVerdict::skip;
};

struct BisectOutcome {
  std::optional<std::size_t> first_bad;  // the culprit, when the search narrowed to one commit
  // Otherwise the culprit is one of candidates [range_begin, range_end] (inclusive).
  std::size_t range_begin = 0, range_end = 0;
  std::vector<BisectStep> steps;  // the questions asked, in order
  bool out_of_steps = false;      // stopped by max_steps before narrowing to one
};

// Throws std::invalid_argument for no candidates or max_steps < 0.
BisectOutcome bisect_search(std::size_t candidates, const std::function<BisectVerdict(std::size_t)>& judge,
                            int max_steps);

// The questions a search over n candidates needs without skips: ceil(log2(n)).
int bisect_steps_needed(std::size_t candidates);

}  // namespace tb
