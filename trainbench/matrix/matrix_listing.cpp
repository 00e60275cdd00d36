#include <trainbench/matrix/matrix_listing.hpp>

#include <algorithm>
#include <functional>
#include <sstream>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/support/text_table.hpp>

namespace tb {

namespace {

struct Column {
  std::string header;
  bool numeric;  // numbers right-aligned, text left-aligned
  std::function<std::string(std::size_t index, const ScenarioParams&)> cell;
};

// The scenario's index and id, the listed fields of scenario_axes(), the effective batch.
std::vector<Column> columns(const std::vector<ScenarioParams>& scenarios) {
  std::vector<Column> out = {
      {"#", true, [](std::size_t index, const ScenarioParams&) { return std::to_string(index); }},
      {"id", false, [](std::size_t, const ScenarioParams& p) { return scenario_id(p); }}};
  for (const ScenarioAxis& axis : scenario_axes()) {
    if (axis.listing.header == nullptr) continue;
    if (axis.listing.hidden_when_all != nullptr &&
        std::all_of(scenarios.begin(), scenarios.end(), [&axis](const ScenarioParams& p) {
          return axis_text(axis.value(p)) == axis.listing.hidden_when_all;
        }))
      continue;
    out.push_back({axis.listing.header, axis.listing.numeric, [&axis](std::size_t, const ScenarioParams& p) {
                     const std::string text = axis_text(axis.value(p));
                     return text.empty() ? std::string(axis.listing.empty_text) : text;
                   }});
  }
  out.push_back(
      {"eff-batch", true, [](std::size_t, const ScenarioParams& p) { return std::to_string(p.effective_batch); }});
  return out;
}

}  // namespace

std::string format_scenario_list(const MatrixSpec& spec, const std::vector<ScenarioParams>& scenarios) {
  std::ostringstream os;
  os << "matrix: " << spec.name << " (" << spec.file << ")\n";
  if (!spec.description.empty()) os << "description: " << spec.description << "\n";
  os << "device: " << spec.device_request;
  if (!scenarios.empty() && spec.device_request == "auto") os << " -> " << to_string(scenarios.front().device);
  os << "\n";
  // The axes that vary, in expand()'s order (the last varies fastest); one-value axes say nothing.
  std::string varying;
  for (const ScenarioAxis& axis : scenario_axes())
    if (axis.product && axis.product->size(spec) > 1) varying += (varying.empty() ? "" : ", ") + std::string(axis.name);
  std::string notes;
  if (!varying.empty()) notes = "order: " + varying;
  if (!spec.exclude.empty())
    notes += (notes.empty() ? "" : "; ") + std::to_string(spec.exclude.size()) + " exclude rule(s) applied";
  os << "scenarios: " << scenarios.size() << (notes.empty() ? "" : " (" + notes + ")") << "\n";
  if (spec.hold_effective_batch) os << "batch axis holds the EFFECTIVE batch; micro-batch = batch / accumulation\n";
  if (spec.batch_search) os << "batch: found by a capacity search (\"max\"); the micro-batch shown is a placeholder\n";
  if (scenarios.empty()) return os.str();

  const BaselineChoice baseline = choose_baseline(spec, scenarios);
  for (const auto& note : spec.baseline_notes) os << note << "\n";
  if (baseline.matched) os << "baseline (*): " << scenario_id(scenarios[baseline.index]) << "\n";
  else os << "baseline (*): no scenario matches " << baseline.wanted.dump() << "; the first scenario is used instead\n";

  // One table; the baseline's row is marked in a margin in front of it.
  const std::vector<Column> cols = columns(scenarios);
  TextTable table;
  for (const Column& col : cols) {
    table.titles.push_back(col.header);
    table.right.push_back(col.numeric);
  }
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    auto& row = table.rows.emplace_back();
    for (const Column& col : cols) row.push_back(col.cell(i, scenarios[i]));
  }
  std::ostringstream text;
  write_text_table(text, table, TextLayout{.gap = 2, .rule = false, .align_titles = true});
  std::istringstream lines(text.str());
  std::size_t row = 0;  // 0: the titles
  for (std::string line; std::getline(lines, line); ++row)
    os << (row > 0 && row - 1 == baseline.index ? "* " : "  ") << line << "\n";
  return os.str();
}

}  // namespace tb
