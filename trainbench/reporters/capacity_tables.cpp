#include <trainbench/reporters/capacity_tables.hpp>

#include <trainbench/reporters/energy_view.hpp>

#include <algorithm>
#include <cmath>

#include <trainbench/capacity/byte_size.hpp>
#include <trainbench/capacity/utilization.hpp>
#include <trainbench/reporters/report_format.hpp>

namespace tb::report {

namespace {

// A fitted intercept can be negative or zero, which bytes() would print as "-" (not measured).
std::string signed_bytes(double n) {
  return capacity::format_bytes(std::llround(n), capacity::ByteDigits::one_decimal);
}

std::string hours(double seconds) { return fixed(seconds / 3600.0, 2); }

// "32✓ 128✓ 1024✗": every probe in the order taken, ✓ fits, ✗ does not.
std::string probes_cell(const BatchSearchEntry& b) {
  if (b.probes.empty()) return "-";
  std::string out;
  for (const auto& p : b.probes) out += (out.empty() ? "" : " ") + std::to_string(p.batch) + (p.fits ? "✓" : "✗");
  return out;
}

// Columns with nothing to show in any row ("-" throughout: no capacity.target, no price) are
// left out, the scenario column aside.
void drop_empty_columns(TextTable& t) {
  for (std::size_t c = t.titles.size(); c-- > 1;) {
    const bool empty = std::all_of(t.rows.begin(), t.rows.end(), [&](const std::vector<std::string>& row) {
      return c >= row.size() || row[c] == "-";
    });
    if (!empty || t.rows.empty()) continue;
    t.titles.erase(t.titles.begin() + static_cast<std::ptrdiff_t>(c));
    t.right.erase(t.right.begin() + static_cast<std::ptrdiff_t>(c));
    for (auto& row : t.rows)
      if (c < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(c));
  }
}

}  // namespace

std::string max_batch_cell(const BatchSearchEntry& b) {
  if (b.max_batch <= 0) return "none fits";
  const std::string n = std::to_string(b.max_batch);
  return b.hit_limit ? "≥" + n + " (search limit)" : n;
}

std::string mfu_cell(const ScenarioCapacitySection& c) {
  if (c.peak_flops_per_s <= 0) return "-";
  if (!c.mfu_error.empty()) return capacity::kMfuErrorCell;
  // Above the peak's median but not its fastest block: the probe's own spread.
  if (c.mfu > 1.0) return "100% (at peak)";
  return percent(c.mfu, 2) + "%";
}

std::vector<std::pair<std::string, std::string>> mfu_errors(const RunResult& run) {
  std::vector<std::pair<std::string, std::string>> errors;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) continue;
    if (const auto& c = s.capacity; c && c->peak_flops_per_s > 0 && !c->mfu_error.empty())
      errors.emplace_back(s.id, c->mfu_error);
  }
  return errors;
}

TextTable scenario_capacity_table(const RunResult& run) {
  std::vector<std::pair<const ScenarioResult*, ScenarioCapacitySection>> found;
  double largest_rate = 0;
  for (const auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok) continue;
    if (const auto& c = s.capacity) {
      largest_rate = std::max({largest_rate, c->achieved_flops_per_s, c->peak_flops_per_s});
      found.emplace_back(&s, *c);
    }
  }
  const bool tera = largest_rate >= 1e12;
  const double scale = tera ? 1e12 : 1e9;
  const std::string unit = tera ? "TFLOP/s" : "GFLOP/s";

  // The energy column only when some projection has an energy figure (measured or given power).
  bool energy_column = false;
  for (const auto& [s, c] : found) energy_column |= c.projection && !projected_energy(*c.projection).empty();
  TextTable t;
  t.titles = {"scenario", "GFLOP/sample",   "achieved " + unit,     "peak " + unit, "peak source",
              "MFU",      "target samples", "projected h [95% CI]", "device-h",     "cost"};
  t.right = {false, true, true, true, false, true, true, true, true, true};
  if (energy_column) {
    t.titles.push_back("energy");
    t.right.push_back(false);
  }
  for (const auto& [s, c] : found) {
    std::vector<std::string> row = {s->id,
                                    c.flops_per_sample ? significant(c.flops_per_sample->total() / 1e9) : "-",
                                    fixed(c.achieved_flops_per_s / scale, 3),
                                    c.peak_flops_per_s > 0 ? fixed(c.peak_flops_per_s / scale, 1) : "-",
                                    c.peak_source.empty() ? "-" : c.peak_source,
                                    mfu_cell(c)};
    if (const auto& p = c.projection) {
      row.push_back(si_count(p->target_samples));
      // One round gives a median but no interval: a zero-width [29.80, 29.80] would claim one.
      const bool interval = s->step_time_s.has_interval() && p->ci_high_s > p->ci_low_s;
      row.push_back(hours(p->time_s) +
                    (interval ? " [" + hours(p->ci_low_s) + ", " + hours(p->ci_high_s) + "]" : " (no interval)"));
      row.push_back(fixed(p->device_hours, 2));
      row.push_back(p->cost ? fixed(*p->cost, 2) : "-");
      const std::string energy = projected_energy(*p);
      if (energy_column) row.push_back(energy.empty() ? "-" : energy);
    } else {
      row.insert(row.end(), {"-", "-", "-", "-"});
      if (energy_column) row.push_back("-");
    }
    t.rows.push_back(std::move(row));
  }
  drop_empty_columns(t);
  return t;
}

TextTable batch_search_table(const RunCapacitySection& capacity) {
  TextTable t;
  t.titles = {"model", "precision", "max batch", "best batch", "best samples/s", "probes (✓ fits, ✗ does not)"};
  t.right = {false, false, true, true, true, false};
  for (const auto& b : capacity.batch_search)
    t.rows.push_back({b.model.empty() ? "-" : b.model, b.precision.empty() ? "-" : b.precision, max_batch_cell(b),
                      b.best_batch > 0 ? std::to_string(b.best_batch) : "-", rate(b.best_samples_per_s),
                      probes_cell(b)});
  return t;
}

TextTable memory_fit_table(const RunCapacitySection& capacity) {
  TextTable t;
  t.titles = {"model", "precision", "fixed", "per sample", "R²", "predicted max batch"};
  t.right = {false, false, true, true, true, true};
  for (const auto& m : capacity.memory_fit) {
    const std::int64_t limit = m.memory_bytes.value_or(capacity.memory_limit_bytes);
    std::string predicted = std::to_string(m.predicted_max_batch);
    if (limit > 0) predicted += " @ " + bytes(limit);
    t.rows.push_back({m.model.empty() ? "-" : m.model, m.precision.empty() ? "-" : m.precision,
                      signed_bytes(m.fixed_bytes), signed_bytes(m.per_sample_bytes), m.r2 ? fixed(*m.r2, 4) : "-",
                      predicted});
  }
  return t;
}

std::string memory_limit_note(const RunCapacitySection& capacity) {
  if (capacity.memory_limit_bytes <= 0) return "";
  std::string note = "memory limit " + bytes(capacity.memory_limit_bytes);
  if (!capacity.limit_source.empty()) note += " (" + capacity.limit_source + ")";
  return note;
}

}  // namespace tb::report
