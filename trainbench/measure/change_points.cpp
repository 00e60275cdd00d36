#include <trainbench/measure/change_points.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <trainbench/measure/stats.hpp>

namespace tb {

namespace {

// splitmix64: small, fast and the same on every platform (std:: distributions are not).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

void shuffle(std::vector<double>& v, SplitMix64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
}

struct SeriesPart {
  std::size_t begin = 0, end = 0;  // [begin, end) of the series
  BestSplit best;                  // index relative to begin
};

double permutation_p_value(std::span<const double> segment, double q, const ChangePointOptions& options,
                           SplitMix64& rng) {
  std::vector<double> shuffled(segment.begin(), segment.end());
  int at_least_as_large = 0;
  for (int i = 0; i < options.permutations; ++i) {
    shuffle(shuffled, rng);
    if (best_split(shuffled, options.min_segment).q >= q) ++at_least_as_large;
  }
  return (1.0 + at_least_as_large) / (1.0 + options.permutations);
}

void describe_magnitude(std::span<const double> before, std::span<const double> after, ChangePoint& cp) {
  const double mb = stats::median(before), ma = stats::median(after);
  if (!(mb > 0) || !(ma > 0)) return;  // a ratio means nothing across zero
  // bootstrap_ratio_of_medians gives median(before) / median(after); the change is its inverse.
  const stats::RatioInterval r = stats::bootstrap_ratio_of_medians(before, after);
  cp.ratio = 1 / r.ratio;
  cp.ratio_low = 1 / r.high;
  cp.ratio_high = 1 / r.low;
  cp.ratio_valid = r.valid && before.size() >= 3 && after.size() >= 3;
}

}  // namespace

BestSplit best_split(std::span<const double> z, std::size_t min_segment) {
  const std::size_t n = z.size();
  if (min_segment < 2 || n < 2 * min_segment) return {};
  const auto d = [&](std::size_t i, std::size_t j) { return std::abs(z[i] - z[j]); };
  // Sums of distances within the left part, within the right part, and across, for the split
  // at tau = min_segment; each step of tau then moves one point from the right to the left in O(n).
  double within_left = 0, within_right = 0, across = 0;
  std::size_t tau = min_segment;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      if (j < tau) within_left += d(i, j);
      else if (i >= tau) within_right += d(i, j);
      else across += d(i, j);
    }
  BestSplit best;
  for (;; ++tau) {
    const auto m = static_cast<double>(tau), k = static_cast<double>(n - tau);
    const double energy = 2 * across / (m * k) - within_left / (m * (m - 1) / 2) - within_right / (k * (k - 1) / 2);
    const double q = m * k / (m + k) * energy;
    if (q > best.q) best = {tau, q};
    if (tau + 1 > n - min_segment) break;
    double to_left = 0, to_right = 0;  // point tau's distances to the left part and the rest of the right
    for (std::size_t i = 0; i < tau; ++i) to_left += d(i, tau);
    for (std::size_t j = tau + 1; j < n; ++j) to_right += d(tau, j);
    within_left += to_left;
    within_right -= to_right;
    across += to_right - to_left;
  }
  return best;
}

std::vector<ChangePoint> find_change_points(std::span<const double> series, const ChangePointOptions& options) {
  if (options.min_segment < 2) throw std::invalid_argument("change points: min_segment must be >= 2");
  if (options.permutations < 1) throw std::invalid_argument("change points: permutations must be >= 1");
  if (!(options.significance > 0 && options.significance < 1))
    throw std::invalid_argument("change points: significance must be in (0, 1)");

  SplitMix64 rng{options.seed};
  const auto split_of = [&](std::size_t begin, std::size_t end) {
    return SeriesPart{begin, end, best_split(series.subspan(begin, end - begin), options.min_segment)};
  };
  std::vector<SeriesPart> segments{split_of(0, series.size())};
  std::vector<ChangePoint> found;
  for (;;) {
    // The strongest candidate over all segments goes first (binary segmentation).
    auto strongest = std::max_element(segments.begin(), segments.end(),
                                      [](const SeriesPart& a, const SeriesPart& b) { return a.best.q < b.best.q; });
    if (strongest == segments.end() || strongest->best.index == 0 || !(strongest->best.q > 0)) break;
    const SeriesPart s = *strongest;
    const double p = permutation_p_value(series.subspan(s.begin, s.end - s.begin), s.best.q, options, rng);
    if (p > options.significance) break;
    ChangePoint cp;
    cp.index = s.begin + s.best.index;
    cp.q = s.best.q;
    cp.p_value = p;
    found.push_back(cp);
    *strongest = split_of(s.begin, cp.index);
    segments.push_back(split_of(cp.index, s.end));
  }

  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : found[i - 1].index;
    const std::size_t end = i + 1 == found.size() ? series.size() : found[i + 1].index;
    describe_magnitude(series.subspan(begin, found[i].index - begin),
                       series.subspan(found[i].index, end - found[i].index), found[i]);
  }
  return found;
}

}  // namespace tb
