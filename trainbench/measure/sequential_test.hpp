// A sequential verdict on paired rounds: measure OLD and NEW round after round, look after every
// batch, and stop as soon as the answer is settled, with intervals that stay honest however
// often one looks.
//
// The data are the paired ratios NEW/OLD of an `ab` session, one per round (x_j = log ratio_j;
// the machine's drift cancels inside a round). The method is the repeated confidence interval
// of a group-sequential design (Jennison & Turnbull 1989, "Interim analyses: the repeated
// confidence interval approach", JRSS B 51:305; Jennison & Turnbull 2000, "Group Sequential
// Methods with Applications to Clinical Trials", ch. 9, 11 and 19) with the Lan-DeMets alpha
// spending function of O'Brien-Fleming type (Lan & DeMets 1983, Biometrika 70:659):
//   - looks at min_rounds, min_rounds + batch, ... and max_rounds (information t = n / max_rounds);
//   - the normal boundaries c_1..c_K are the ones whose two-sided crossing probabilities under
//     no change sum to alpha(t_k) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t_k)) by look k (recursive
//     numerical integration, Armitage, McPherson & Rowe 1969; Jennison & Turnbull ch. 19);
//   - the variance is unknown and estimated from few rounds, so each c_k becomes the Student t
//     quantile with n_k - 1 degrees of freedom at the same nominal level (the "significance
//     level approach", Jennison & Turnbull 2000, 11.2). With 3-30 rounds that approximation errs
//     on the liberal side (5.3-5.6% instead of 5%, more with Pocock spending or small alpha), so
//     the design alpha is calibrated down until 50,000 simulated sessions of normal log ratios
//     (fixed seed: the same design everywhere) miss in at most alpha, three standard errors
//     included;
//   - the interval at look k is exp(mean(x) +- q_k s / sqrt(n_k)), s the sd of the n_k log ratios.
// All K intervals cover the true ratio together with probability 1 - alpha, so stopping at the
// first look that settles the question (or at any look, for any reason) keeps that coverage.
//
// Why this and not a confidence sequence: the asymptotic CS (Waudby-Smith et al. 2024) relies on
// a central limit theorem and undercovers at 3-30 rounds; sub-Gaussian or empirical-Bernstein
// CSs (Howard et al. 2021; Waudby-Smith & Ramdas 2023) need a known scale or a bounded range of
// the log ratio, and bounds wide enough for a contended round make them decide nothing before
// ~100 rounds. `ab` knows its largest number of rounds in advance, which is exactly what a
// group-sequential design needs, and its t intervals are the paired t intervals `compare` shows
// (the last look's is one fixed-sample t interval, only a little wider). The t statistic is
// self-normalising: one outlier round widens the interval more than it moves it, so heavy tails
// make the test conservative, not wrong. O'Brien-Fleming spending keeps almost all of alpha for
// the later looks: early looks settle only large changes, and the last interval is nearly the
// fixed-sample one (Pocock-type spending decides small-noise cases a round or two sooner but
// widens every later interval; tests/measure/test_sequential_test.cpp compares them).
//
// Verdicts, in the gate's terms (measure/comparison.hpp: a regression is a speed-up OLD/NEW
// whose whole interval is below 1 - gate, i.e. NEW/OLD above 1 / (1 - gate)):
//   slower      the interval of NEW/OLD lies entirely above 1 / (1 - gate)
//   not_slower  it lies entirely below 1 / (1 - margin), margin = gate unless set (bisect: the
//               slowdown found at BAD, when that is smaller); `faster` when it also lies below
//               1 - gate
//   undecided   neither: more rounds (continue) or none left (budget), with the interval as is.
// A change right at the gate cannot be settled by any number of rounds: that is what "undecided"
// after the budget says. The interval is two-sided at 1 - alpha, so a false "slower" under no
// change is at most alpha / 2 over all looks together (as the Bonferroni gate of `compare` is).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

enum class AlphaSpending {
  obrien_fleming,  // Lan-DeMets: 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))
  pocock,          // Lan-DeMets: alpha ln(1 + (e - 1) t)
};

struct SequentialOptions {
  double gate = 0.05;                       // a slowdown fails past a speed-up of 1 - gate (0 < gate < 1)
  std::optional<double> not_slower_margin;  // "not slower" excludes this slowdown (default: gate)
  double alpha = 0.05;                      // two-sided, over all looks (per scenario: alpha / k for k gated)
  int min_rounds = 3;                       // the first look (>= 3: a t interval needs 2 degrees of freedom)
  int max_rounds = 30;                      // the last look: the design's whole budget of clean rounds
  int batch = 3;                            // rounds between looks (>= 1)
  AlphaSpending spending = AlphaSpending::obrien_fleming;
};

enum class SequentialVerdict { slower, not_slower, undecided_continue, undecided_budget };
const char* to_string(SequentialVerdict v);  // "slower", "not slower", "undecided", "undecided"

struct SequentialDecision {
  SequentialVerdict verdict = SequentialVerdict::undecided_continue;
  bool faster = false;  // not_slower, and the whole interval of NEW/OLD is below 1 - gate
  int rounds = 0;       // paired ratios behind it
  int look = 0;         // 1-based look this decision was taken at; 0 when `rounds` is no look
  int next_look = 0;    // rounds at which the next look is due; 0 when settled or the budget is spent
  // NEW/OLD: the geometric mean of the ratios and its repeated confidence interval, valid at this
  // look and every other together. valid = false (low = high = ratio) when no look was taken.
  double ratio = 1, low = 1, high = 1;
  bool valid = false;
  double critical_value = 0;  // q_k: the interval is mean(log) +- q_k * s / sqrt(n)
  double noise = 0;           // s: the sd of the log ratios (relative round-to-round noise)
  bool settled() const { return verdict == SequentialVerdict::slower || verdict == SequentialVerdict::not_slower; }
  bool undecided() const { return !settled(); }
};

// The planned looks and their boundaries: computed once per set of options (about 0.1 s: the
// calibration below), reused for every scenario and look of a session.
struct SequentialDesign {
  SequentialOptions options;
  double design_alpha = 0;         // the alpha the boundaries spend: options.alpha, calibrated down
  std::vector<int> looks;          // rounds at each planned look, increasing, the last max_rounds
  std::vector<double> boundaries;  // two-sided normal critical value c_k of each look
  std::vector<double> critical;    // c_k as a t critical value with looks[k] - 1 degrees of freedom
};
// std::invalid_argument for options out of range.
SequentialDesign make_sequential_design(const SequentialOptions& options = {});

// The decision after `paired_ratios` (NEW/OLD of each clean round, in order; all > 0 and finite,
// else std::invalid_argument). A look is taken when their count is a planned look, or when
// budget_spent (a time budget ran out, or nothing more will be measured): that look is then the
// last, and spends what is left of alpha. At max_rounds or more every call is a last look.
// Between looks (or below min_rounds) the verdict is undecided_continue with next_look set:
// the caller measures up to that many clean rounds and asks again. Taking looks only at the
// planned counts is the caller's side of the contract: extra looks would spend alpha twice.
SequentialDecision decide(std::span<const double> paired_ratios, const SequentialDesign& design,
                          bool budget_spent = false);
SequentialDecision decide(std::span<const double> paired_ratios, const SequentialOptions& options,
                          bool budget_spent = false);

// How many clean rounds would settle an undecided question, roughly: the n at which the last
// look's interval, with this decision's noise, would just exclude the threshold nearest to its
// ratio ((q s / d)^2, d that distance in log space; q the last look's critical value, close to
// the design's). Infinite when the ratio sits on a threshold. For the report of an undecided
// verdict ("about 90 rounds at this noise") and for sizing a budget, not for any decision.
double rounds_to_settle(const SequentialDecision& decision, const SequentialDesign& design);

// bisect's margin for "good": the slowdown BAD showed against GOOD (the point estimate, as a
// fraction in the gate's terms: 1 - OLD/NEW), or the gate, whichever is smaller. A commit is
// good only when its interval excludes that slowdown.
double bisect_margin(const SequentialDecision& bad_against_good, double gate);

// One scenario's sequential verdict as a comparison records it (comparison.json "sequential"):
// what `ab` decided, after how many rounds, on which interval.
struct SequentialRecord {
  std::string verdict;                  // "slower", "not slower", "undecided"
  std::string end;                      // why it stopped: "settled", "budget spent", "refused" (contended), "broken"
  bool faster = false;                  // not slower, and faster beyond the gate
  int rounds = 0;                       // clean rounds behind the verdict
  int measured = 0;                     // rounds measured, dropped ones included
  int dropped = 0;                      // contended rounds left out
  int looks = 0;                        // looks taken
  double ratio = 1, low = 1, high = 1;  // NEW/OLD and its repeated 1 - alpha interval
  bool valid = false;
  double gate_pct = 0;
  double noise_pct = 0;                    // sd of the log ratios, percent
  std::optional<double> rounds_to_settle;  // undecided: about how many clean rounds would settle it
  std::string contention;                  // "2 of 14 rounds dropped (contended): ..."
};
void to_json(nlohmann::json& j, const SequentialRecord& r);
void from_json(const nlohmann::json& j, SequentialRecord& r);

// ---- the building blocks, tested against published tables

// Alpha spent by information fraction t in [0, 1] (0 at 0, alpha at 1).
double spent_alpha(AlphaSpending spending, double alpha, double t);

// Two-sided normal boundaries c_k at information fractions 0 < t_1 < ... < t_K <= 1: under no
// change, P(|Z_j| < c_j for j < k, |Z_k| >= c_k) = spent(t_k) - spent(t_{k-1}), Z_k the
// standardized sum at t_k. A look that may spend (almost) nothing gets an infinite boundary.
// The last look spends everything up to t_K, so a design that ends early passes t_K = 1.
std::vector<double> group_sequential_boundaries(std::span<const double> information, double alpha,
                                                AlphaSpending spending);

// Upper tail of Student's t: P(T > t) for df > 0, accurate far into the tail (via the
// regularized incomplete beta function).
double student_t_tail(double t, double df);
// Its inverse: the t with P(T > t) = p, for p in (0, 0.5]; infinity when p underflows to 0.
double student_t_upper_quantile(double p, double df);

}  // namespace tb
