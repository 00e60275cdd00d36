#include <trainbench/measure/sequential_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

namespace tb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Grid of the numerical integration: points per look (odd, for Simpson's rule) and how many
// standard deviations of the running sum it spans (the density beyond 8 sd is below 1e-15).
// 201 points reproduce the published boundaries to 3 decimals.
constexpr int kGridPoints = 201;
constexpr double kGridSpan = 8.0;
// Beyond this normal critical value the tail probability underflows: no boundary at all.
constexpr double kLargestBoundary = 37.0;
// Normal sessions that calibrate a design: a 5% design's error is estimated to +-0.1% (one sd).
constexpr int kCalibrationSessions = 50000;

double normal_upper(double z) { return 0.5 * std::erfc(z / std::numbers::sqrt2); }

double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi); }

// The sub-density of the running sum S (variance t at information t) on the continuation
// region of the looks so far, at grid points, each value already multiplied by its Simpson
// weight: integrals over it are plain sums.
struct Density {
  std::vector<double> at, weighted;
};

Density grid_on(double half_width) {
  Density d;
  const double h = 2 * half_width / (kGridPoints - 1);
  for (int i = 0; i < kGridPoints; ++i) {
    d.at.push_back(-half_width + h * i);
    const double simpson = (i == 0 || i == kGridPoints - 1) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
    d.weighted.push_back(simpson * h / 3);
  }
  return d;
}

// Continuation region of a look at information t with normal boundary c, cut where the
// unconstrained density is negligible anyway.
double region(double t, double c) { return std::min(c * std::sqrt(t), kGridSpan * std::sqrt(t)); }

Density first_density(double t, double c) {
  Density d = grid_on(region(t, c));
  const double sd = std::sqrt(t);
  for (std::size_t i = 0; i < d.at.size(); ++i) d.weighted[i] *= normal_pdf(d.at[i] / sd) / sd;
  return d;
}

// The density after one more look: S moves by an independent N(0, delta) increment.
Density next_density(const Density& before, double delta, double t, double c) {
  Density d = grid_on(region(t, c));
  const double sd = std::sqrt(delta);
  for (std::size_t j = 0; j < d.at.size(); ++j) {
    double f = 0;
    for (std::size_t i = 0; i < before.at.size(); ++i)
      f += before.weighted[i] * normal_pdf((d.at[j] - before.at[i]) / sd);
    d.weighted[j] *= f / sd;
  }
  return d;
}

// Probability of crossing +-c at information t, from `before` (none: the first look).
double crossing(const Density* before, double t_before, double t, double c) {
  if (!before) return 2 * normal_upper(c);
  const double sd = std::sqrt(t - t_before), b = c * std::sqrt(t);
  double p = 0;
  for (std::size_t i = 0; i < before->at.size(); ++i)
    p += before->weighted[i] * (normal_upper((b - before->at[i]) / sd) + normal_upper((b + before->at[i]) / sd));
  return p;
}

// The boundary whose crossing probability is `target` (crossing falls as c grows).
double solve_boundary(const Density* before, double t_before, double t, double target) {
  if (!(target > crossing(before, t_before, t, kLargestBoundary))) return kInf;
  double lo = 0, hi = kLargestBoundary;
  for (int i = 0; i < 100 && hi - lo > 1e-10; ++i) {
    const double mid = (lo + hi) / 2;
    (crossing(before, t_before, t, mid) > target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double md = m;
    const double even = md * (b - md) * x / ((a + 2 * md - 1) * (a + 2 * md));
    for (const double coefficient : {even, -(a + md) * (a + b + md) * x / ((a + 2 * md) * (a + 2 * md + 1))}) {
      d = 1 + coefficient * d;
      if (std::abs(d) < tiny) d = tiny;
      c = 1 + coefficient / c;
      if (std::abs(c) < tiny) c = tiny;
      d = 1 / d;
      h *= d * c;
    }
    if (std::abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

void check_options(const SequentialOptions& o) {
  const auto bad = [](const std::string& what) { throw std::invalid_argument("sequential test: " + what); };
  if (!(o.gate > 0 && o.gate < 1)) bad("gate must be in (0, 1)");
  if (o.not_slower_margin && !(*o.not_slower_margin > 0 && *o.not_slower_margin < 1))
    bad("not_slower_margin must be in (0, 1)");
  if (!(o.alpha > 0 && o.alpha < 1)) bad("alpha must be in (0, 1)");
  if (o.min_rounds < 3) bad("min_rounds must be at least 3");
  if (o.max_rounds < o.min_rounds) bad("max_rounds must be at least min_rounds");
  if (o.batch < 1) bad("batch must be at least 1");
}

// The normal critical value as a t critical value with df degrees of freedom, at the same
// one-sided nominal level.
double t_critical(double c, double df) {
  if (std::isinf(c)) return kInf;
  return student_t_upper_quantile(normal_upper(c), df);
}

}  // namespace

const char* to_string(SequentialVerdict v) {
  switch (v) {
    case SequentialVerdict::slower: return "slower";
    case SequentialVerdict::not_slower: return "not slower";
    case SequentialVerdict::undecided_continue:
    case SequentialVerdict::undecided_budget: return "undecided";
  }
  return "undecided";
}

double spent_alpha(AlphaSpending spending, double alpha, double t) {
  if (t <= 0) return 0;
  if (t >= 1) return alpha;
  switch (spending) {
    case AlphaSpending::obrien_fleming: {
      // z_{1-alpha/2}: the c with 2 (1 - Phi(c)) = alpha.
      const double z = solve_boundary(nullptr, 0, 1, alpha);
      return 2 * normal_upper(z / std::sqrt(t));
    }
    case AlphaSpending::pocock: return alpha * std::log(1 + (std::numbers::e - 1) * t);
  }
  return alpha;
}

std::vector<double> group_sequential_boundaries(std::span<const double> information, double alpha,
                                                AlphaSpending spending) {
  std::vector<double> c;
  Density density;
  double spent = 0, t_before = 0;
  for (std::size_t k = 0; k < information.size(); ++k) {
    const double t = information[k];
    if (!(t > t_before && t <= 1)) throw std::invalid_argument("group_sequential_boundaries: bad information");
    const double cumulative = k + 1 == information.size() ? alpha : spent_alpha(spending, alpha, t);
    const Density* before = k == 0 ? nullptr : &density;
    c.push_back(solve_boundary(before, t_before, t, std::max(0.0, cumulative - spent)));
    spent = std::max(spent, cumulative);
    density = k == 0 ? first_density(t, c.back()) : next_density(density, t - t_before, t, c.back());
    t_before = t;
  }
  return c;
}

double student_t_tail(double t, double df) {
  if (!(df > 0)) throw std::invalid_argument("student_t_tail: df must be > 0");
  if (t < 0) return 1 - student_t_tail(-t, df);
  return 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_upper_quantile(double p, double df) {
  if (!(p > 0 && p <= 0.5)) {
    if (p == 0) return kInf;
    throw std::invalid_argument("student_t_upper_quantile: p must be in (0, 0.5]");
  }
  double lo = 0, hi = 1;
  while (student_t_tail(hi, df) > p) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) return kInf;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_tail(mid, df) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

namespace {

// The critical values of the looks at a given alpha: the normal boundaries as t quantiles.
std::vector<double> t_boundaries(const std::vector<int>& looks, int max_rounds, double alpha, AlphaSpending spending,
                                 std::vector<double>* normal = nullptr) {
  std::vector<double> information;
  for (const int n : looks) information.push_back(static_cast<double>(n) / max_rounds);
  const std::vector<double> c = group_sequential_boundaries(information, alpha, spending);
  if (normal) *normal = c;
  std::vector<double> q;
  for (std::size_t k = 0; k < looks.size(); ++k) q.push_back(t_critical(c[k], looks[k] - 1));
  return q;
}

// Box-Muller on mt19937_64's raw output (its sequence is fixed by the standard, unlike
// std::normal_distribution's): the calibration's sessions are the same on every platform.
struct Normals {
  std::mt19937_64 engine;
  double uniform() { return (static_cast<double>(engine() >> 11) + 0.5) * 0x1.0p-53; }
  double draw() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform()); }
};

// |t| at every look of kCalibrationSessions sessions of normal log ratios without a change.
std::vector<double> simulated_t_statistics(const std::vector<int>& looks) {
  Normals normals{std::mt19937_64(20240601)};
  std::vector<double> t;
  t.reserve(kCalibrationSessions * looks.size());
  for (int s = 0; s < kCalibrationSessions; ++s) {
    double sum = 0, squares = 0;
    int n = 0;
    for (const int look : looks) {
      for (; n < look; ++n) {
        const double x = normals.draw();
        sum += x;
        squares += x * x;
      }
      const double mean = sum / n, var = std::max(0.0, (squares - n * mean * mean) / (n - 1));
      t.push_back(var > 0 ? std::abs(mean) * std::sqrt(n / var) : kInf);
    }
  }
  return t;
}

// The share of the simulated sessions whose interval misses somewhere, plus three standard
// errors: the calibrated design errs in at most alpha unless its sample was unusually lucky.
double simulated_error(const std::vector<double>& t, const std::vector<double>& q) {
  int missed = 0;
  for (std::size_t s = 0; s < t.size(); s += q.size())
    for (std::size_t k = 0; k < q.size(); ++k)
      if (t[s + k] >= q[k]) {
        ++missed;
        break;
      }
  const double p = static_cast<double>(missed) / kCalibrationSessions;
  return p + 3 * std::sqrt(p * (1 - p) / kCalibrationSessions);
}

}  // namespace

SequentialDesign make_sequential_design(const SequentialOptions& options) {
  check_options(options);
  SequentialDesign d;
  d.options = options;
  for (int n = options.min_rounds; n < options.max_rounds; n += options.batch) d.looks.push_back(n);
  d.looks.push_back(options.max_rounds);
  // Calibration: the largest design alpha (at most the asked one) whose t intervals miss in at
  // most alpha of the simulated normal sessions, three standard errors included. Bisection in log
  // alpha; the simulated error only grows with the design alpha.
  const std::vector<double> t = simulated_t_statistics(d.looks);
  const auto error = [&](double a) {
    return simulated_error(t, t_boundaries(d.looks, options.max_rounds, a, options.spending));
  };
  double good = options.alpha, bad = options.alpha;
  if (error(good) > options.alpha) {
    while (error(good) > options.alpha) bad = good, good /= 2;
    for (int i = 0; i < 8; ++i) {  // alpha to 0.3%
      const double mid = std::sqrt(good * bad);
      (error(mid) > options.alpha ? bad : good) = mid;
    }
  }
  d.design_alpha = good;
  d.critical = t_boundaries(d.looks, options.max_rounds, good, options.spending, &d.boundaries);
  return d;
}

SequentialDecision decide(std::span<const double> paired_ratios, const SequentialDesign& design, bool budget_spent) {
  const SequentialOptions& o = design.options;
  SequentialDecision out;
  const int n = static_cast<int>(paired_ratios.size());
  out.rounds = n;
  double mean = 0, ss = 0;
  for (const double r : paired_ratios) {
    if (!(r > 0 && std::isfinite(r))) throw std::invalid_argument("sequential test: a paired ratio is not positive");
    mean += std::log(r);
  }
  if (n > 0) mean /= n;
  for (const double r : paired_ratios) ss += (std::log(r) - mean) * (std::log(r) - mean);
  out.ratio = out.low = out.high = std::exp(mean);
  if (n >= 2) out.noise = std::sqrt(ss / (n - 1));

  const bool last = budget_spent || n >= o.max_rounds;
  const auto planned = std::find(design.looks.begin(), design.looks.end(), n);
  const auto next = std::upper_bound(design.looks.begin(), design.looks.end(), n);
  if (n < o.min_rounds || (!last && planned == design.looks.end())) {
    out.verdict = budget_spent ? SequentialVerdict::undecided_budget : SequentialVerdict::undecided_continue;
    out.next_look = budget_spent || next == design.looks.end() ? 0 : *next;
    return out;
  }
  if (!last || n == o.max_rounds) {
    out.critical_value = design.critical[static_cast<std::size_t>(planned - design.looks.begin())];
    out.look = static_cast<int>(planned - design.looks.begin()) + 1;
  } else {
    // An early (or late) last look: the planned looks before it, then this one spends the rest.
    std::vector<double> information;
    for (const int m : design.looks)
      if (m < n && m < o.max_rounds) information.push_back(static_cast<double>(m) / o.max_rounds);
    information.push_back(1.0);
    const double c = group_sequential_boundaries(information, design.design_alpha, o.spending).back();
    out.critical_value = t_critical(c, n - 1);
    out.look = static_cast<int>(information.size());
  }
  const double half = std::isinf(out.critical_value) ? kInf : out.critical_value * out.noise / std::sqrt(n);
  out.low = std::exp(mean - half);
  out.high = std::exp(mean + half);
  out.valid = true;

  const double slower_above = 1 / (1 - o.gate);
  const double not_slower_below = 1 / (1 - o.not_slower_margin.value_or(o.gate));
  if (out.low > slower_above) out.verdict = SequentialVerdict::slower;
  else if (out.high < not_slower_below) out.verdict = SequentialVerdict::not_slower;
  else out.verdict = last ? SequentialVerdict::undecided_budget : SequentialVerdict::undecided_continue;
  out.faster = out.verdict == SequentialVerdict::not_slower && out.high < 1 - o.gate;
  out.next_look = out.verdict == SequentialVerdict::undecided_continue ? *next : 0;
  return out;
}

SequentialDecision decide(std::span<const double> paired_ratios, const SequentialOptions& options, bool budget_spent) {
  return decide(paired_ratios, make_sequential_design(options), budget_spent);
}

double rounds_to_settle(const SequentialDecision& decision, const SequentialDesign& design) {
  const SequentialOptions& o = design.options;
  const double x = std::log(decision.ratio);
  const double distance =
      std::min(std::abs(x + std::log(1 - o.gate)), std::abs(x + std::log(1 - o.not_slower_margin.value_or(o.gate))));
  if (!(distance > 0)) return kInf;
  const double q = design.critical.back() * decision.noise / distance;
  return q * q;
}

double bisect_margin(const SequentialDecision& bad_against_good, double gate) {
  const double found = 1 - 1 / bad_against_good.ratio;
  return found > 0 ? std::min(gate, found) : gate;
}

void to_json(nlohmann::json& j, const SequentialRecord& r) {
  j = {{"verdict", r.verdict},
       {"end", r.end},
       {"faster", r.faster},
       {"rounds", r.rounds},
       {"measured", r.measured},
       {"dropped", r.dropped},
       {"looks", r.looks},
       {"ratio", r.ratio},
       {"low", r.low},
       {"high", r.high},
       {"valid", r.valid},
       {"gate_pct", r.gate_pct},
       {"noise_pct", r.noise_pct},
       {"contention", r.contention}};
  if (r.rounds_to_settle) j["rounds_to_settle"] = *r.rounds_to_settle;
}

void from_json(const nlohmann::json& j, SequentialRecord& r) {
  r = SequentialRecord{};
  r.verdict = j.at("verdict").get<std::string>();
  r.end = j.value("end", std::string());
  r.faster = j.value("faster", false);
  r.rounds = j.value("rounds", 0);
  r.measured = j.value("measured", 0);
  r.dropped = j.value("dropped", 0);
  r.looks = j.value("looks", 0);
  r.ratio = j.value("ratio", 1.0);
  r.low = j.value("low", 1.0);
  r.high = j.value("high", 1.0);
  r.valid = j.value("valid", false);
  r.gate_pct = j.value("gate_pct", 0.0);
  r.noise_pct = j.value("noise_pct", 0.0);
  if (j.contains("rounds_to_settle")) r.rounds_to_settle = j["rounds_to_settle"].get<double>();
  r.contention = j.value("contention", std::string());
}

}  // namespace tb
