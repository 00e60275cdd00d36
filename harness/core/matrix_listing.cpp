#include "harness/core/matrix_listing.hpp"

#include <algorithm>
#include <array>
#include <sstream>

namespace tb {

namespace {

constexpr std::size_t kColumns = 10;
using Row = std::array<std::string, kColumns>;

const Row kHeader = {"#",      "id",      "model", "dataset", "device", "precision",
                     "workers", "accum", "micro-batch", "eff-batch"};

Row make_row(std::size_t index, const ScenarioParams& p) {
  return {std::to_string(index),
          scenario_id(p),
          p.model,
          p.dataset.empty() ? "(default)" : p.dataset,
          p.device,
          to_string(p.precision),
          std::to_string(p.workers),
          std::to_string(p.accumulation),
          std::to_string(p.batch),
          std::to_string(p.effective_batch)};
}

}  // namespace

std::string format_scenario_list(const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios) {
  std::ostringstream os;
  os << "matrix: " << spec.name << " (" << spec.file << ")\n";
  if (!spec.description.empty()) os << "description: " << spec.description << "\n";
  os << "device: " << spec.device_request;
  if (!scenarios.empty() && spec.device_request == "auto") os << " -> " << scenarios.front().device;
  os << "\n";
  os << "scenarios: " << scenarios.size() << " (order: model, precision, workers, accumulation, batch";
  if (!spec.exclude.empty()) os << "; " << spec.exclude.size() << " exclude rule(s) applied";
  os << ")\n";
  if (spec.hold_effective_batch) os << "batch axis holds the EFFECTIVE batch; micro-batch = batch / accumulation\n";
  if (spec.batch_search)
    os << "batch: found by a capacity search (\"max\"); the micro-batch shown is a placeholder\n";
  if (scenarios.empty()) return os.str();

  const BaselineChoice baseline = choose_baseline(spec, scenarios);
  if (baseline.matched)
    os << "baseline (*): " << scenario_id(scenarios[baseline.index]) << "\n";
  else
    os << "baseline (*): no scenario matches " << baseline.wanted.dump()
       << "; the first scenario is used instead\n";

  std::vector<Row> rows = {kHeader};
  for (std::size_t i = 0; i < scenarios.size(); ++i) rows.push_back(make_row(i, scenarios[i]));
  std::array<std::size_t, kColumns> width{};
  for (const auto& row : rows)
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], row[c].size());

  for (std::size_t r = 0; r < rows.size(); ++r) {
    const bool is_baseline = r > 0 && r - 1 == baseline.index;
    std::string line = is_baseline ? "* " : "  ";
    for (std::size_t c = 0; c < kColumns; ++c) {
      const std::string& cell = rows[r][c];
      const std::string pad(width[c] - cell.size(), ' ');
      // Numbers right-aligned, text left-aligned.
      const bool numeric = c == 0 || c >= 6;
      line += numeric ? pad + cell : cell + pad;
      if (c + 1 < kColumns) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << "\n";
  }
  return os.str();
}

}  // namespace tb
