#include <trainbench/capacity/batch_search.hpp>

#include <trainbench/runner/interrupt.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>

namespace tb::capacity {
namespace {

class Searcher {
 public:
  Searcher(const std::function<Probe(int)>& try_batch, const BatchSearchOptions& options)
      : try_batch_(try_batch), options_(options) {}

  // Probes a batch (once; a repeated request returns the earlier probe). False when out of
  // probes.
  bool probe(int batch, bool& fits) {
    if (auto it = taken_.find(batch); it != taken_.end()) {
      fits = it->second;
      return true;
    }
    if (static_cast<int>(result_.probes.size()) >= options_.max_probes) return false;
    Probe p;
    try {
      p = try_batch_(batch);
    } catch (const Interrupted&) {
      throw;  // Ctrl-C ends the search; it says nothing about whether the batch fits
    } catch (const std::exception& e) { p = Probe{batch, false, 0, 0, e.what()}; } catch (...) {
      p = Probe{batch, false, 0, 0, "unknown exception"};
    }
    p.batch = batch;  // the callback cannot move the search
    if (!p.fits) p.samples_per_s = 0;
    result_.probes.push_back(p);
    taken_[batch] = p.fits;
    fits = p.fits;
    return true;
  }

  BatchSearchResult finish(int max_fit) {
    result_.max_batch = max_fit;
    for (const auto& p : result_.probes) {
      if (p.fits && (result_.best_batch == 0 || p.samples_per_s > result_.best_samples_per_s)) {
        result_.best_batch = p.batch;
        result_.best_samples_per_s = p.samples_per_s;
      }
    }
    return result_;
  }

  BatchSearchResult& result() { return result_; }

 private:
  const std::function<Probe(int)>& try_batch_;
  const BatchSearchOptions& options_;
  BatchSearchResult result_;
  std::map<int, bool> taken_;
};

void validate(const BatchSearchOptions& o) {
  if (o.multiple_of < 1) throw std::invalid_argument("batch search: multiple_of must be >= 1");
  if (o.start < 1) throw std::invalid_argument("batch search: start must be >= 1");
  if (!(o.growth > 1.0)) throw std::invalid_argument("batch search: growth must be > 1");
  if (o.max_probes < 1) throw std::invalid_argument("batch search: max_probes must be >= 1");
}

}  // namespace

int round_down_to_multiple(int value, int multiple) {
  if (multiple < 1) throw std::invalid_argument("multiple must be >= 1");
  return value < 0 ? 0 : value / multiple * multiple;
}

BatchSearchResult search_batch(const std::function<Probe(int)>& try_batch, const BatchSearchOptions& options) {
  validate(options);
  const int step = options.multiple_of;
  const int limit = round_down_to_multiple(options.limit, step);
  int batch = (options.start + step - 1) / step * step;
  Searcher s(try_batch, options);
  if (batch > limit) return s.finish(0);

  // Growth phase: last_fit < first_fail once a failure is seen.
  int last_fit = 0;
  int first_fail = 0;
  while (true) {
    bool fits = false;
    if (!s.probe(batch, fits)) return s.finish(last_fit);
    if (!fits) {
      first_fail = batch;
      break;
    }
    last_fit = batch;
    if (batch == limit) {
      s.result().hit_limit = true;
      return s.finish(last_fit);
    }
    // Next batch: grow, keep a multiple of step, always move forward, never past the limit.
    const double grown = std::ceil(static_cast<double>(batch) * options.growth);
    int next = grown >= static_cast<double>(limit) ? limit : (static_cast<int>(grown) + step - 1) / step * step;
    next = std::min(std::max(next, batch + step), limit);
    batch = next;
  }

  // Bisection between the last fit (0 = nothing fits yet) and the first failure.
  while (first_fail - last_fit > step) {
    int mid = round_down_to_multiple(last_fit + (first_fail - last_fit) / 2, step);
    if (mid <= last_fit) mid = last_fit + step;
    bool fits = false;
    if (!s.probe(mid, fits)) break;
    if (fits) last_fit = mid;
    else first_fail = mid;
  }
  return s.finish(last_fit);
}

bool fits_budget(std::int64_t peak_bytes, std::int64_t budget) { return budget <= 0 || peak_bytes <= budget; }

int rescale_accumulation(int effective_batch, int micro_batch) {
  if (micro_batch < 1 || effective_batch < 1) throw std::invalid_argument("batch sizes must be positive");
  if (effective_batch % micro_batch != 0)
    throw std::invalid_argument("micro-batch " + std::to_string(micro_batch) + " does not divide the effective batch " +
                                std::to_string(effective_batch));
  return effective_batch / micro_batch;
}

BatchSearchEntry batch_search_entry(const std::string& model, const std::string& precision,
                                    const BatchSearchResult& result) {
  return BatchSearchEntry{
      model,        precision, result.max_batch, result.best_batch, result.best_samples_per_s, result.hit_limit,
      result.probes};
}

}  // namespace tb::capacity
