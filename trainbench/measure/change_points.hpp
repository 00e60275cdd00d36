// Change points in a series of runs: where did the level of a metric shift, and by how much?
//
// The method is E-Divisive means (Matteson & James 2014, "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 109:505), as MongoDB's performance CI
// (Daly et al. 2020) and Apache Otava/Hunter use it, with alpha = 1:
//   - for a segment Z and each split tau, X = Z[0, tau), Y = Z[tau, n):
//       E(X, Y) = 2/(m k) sum|x - y| - 1/C(m,2) sum_{i<j}|x_i - x_j| - 1/C(k,2) sum_{i<j}|y_i - y_j|
//       Q(tau)  = m k / (m + k) * E(X, Y)            (m = |X|, k = |Y|, both >= min_segment)
//     the energy distance between the two sides, scaled by the sizes: it grows with a shift in
//     level and, unlike a t statistic, needs no normality and is robust to a few outliers;
//   - binary segmentation: the split with the largest Q over all current segments is a candidate;
//   - a permutation test decides whether it is real: the candidate's segment is shuffled
//     `permutations` times and the best Q recomputed; p = (1 + #{Q_perm >= Q}) / (1 + permutations).
//     Accepted when p <= significance, then the search goes on in the new segments; the first
//     rejected candidate ends it.
// Pure and deterministic (the permutations use `seed`, with their own index mapping so results
// match across standard libraries); O(permutations * n^2) per accepted change.
//
// A change needs min_segment points on both sides: a slowdown in the newest run is seen once
// min_segment runs show it. That is the price of not raising alarms on one noisy run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tb {

struct ChangePointOptions {
  std::size_t min_segment = 3;  // points on each side of a change, at least (>= 2)
  int permutations = 199;       // of the permutation test (p has a resolution of 1/(permutations+1))
  double significance = 0.05;   // largest p-value accepted
  std::uint64_t seed = 1;
};

struct ChangePoint {
  std::size_t index = 0;  // the first point of the new level: series[index] is after the change
  double q = 0;           // the E-Divisive statistic of the split
  double p_value = 1;     // of the permutation test
  // median(after) / median(before) over the neighbouring segments (between the changes around
  // this one), with a 95% percentile-bootstrap interval: > 1 means the metric went up.
  double ratio = 1, ratio_low = 1, ratio_high = 1;
  bool ratio_valid = false;  // false when a side has too few points for an interval
};

// Change points of `series` (in order, oldest first), sorted by index. Non-finite values are
// the caller's to leave out. Throws std::invalid_argument for min_segment < 2, permutations < 1
// or significance outside (0, 1).
std::vector<ChangePoint> find_change_points(std::span<const double> series, const ChangePointOptions& options = {});

// The best split of `segment` (index and Q), for tests and the cross-check against other
// implementations: {0, 0} when the segment is shorter than 2 * min_segment.
struct BestSplit {
  std::size_t index = 0;
  double q = 0;
};
BestSplit best_split(std::span<const double> segment, std::size_t min_segment);

}  // namespace tb
