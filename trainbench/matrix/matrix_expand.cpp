// A matrix's scenarios: the product of its axes, once per configuration, less what exclude
// removes (matrix.hpp).
#include <trainbench/matrix/matrix.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/cartesian_product.hpp>
#include <trainbench/matrix/matrix_checks.hpp>
#include <trainbench/matrix/matrix_selectors.hpp>

namespace tb {

using matrix_detail::apply_model_overrides;
using matrix_detail::matches_selector;
using matrix_detail::product_sizes;
using nlohmann::json;

json axis_value(const MatrixSpec& spec, const ScenarioParams& p, const std::string& axis) {
  const ScenarioAxis* entry = find_axis(axis);
  if (entry == nullptr || !entry->product) throw std::invalid_argument("unknown axis '" + axis + "'");
  if (axis == "batch") {  // as the matrix writes it: effective when held, global when strong
    const long long batch = spec.hold_effective_batch ? p.effective_batch : p.batch;
    return p.scaling == ScalingMode::strong ? batch * p.world_size : batch;
  }
  return entry->value(p);
}

std::vector<ScenarioParams> expand(const MatrixSpec& spec) {
  std::vector<const ProductAxis*> axes;
  for (const ScenarioAxis& axis : scenario_axes())
    if (axis.product) axes.push_back(&*axis.product);
  std::vector<ScenarioParams> out;
  const std::string device = to_string(spec.defaults.device);
  for_each_combination(product_sizes(spec), [&](const std::vector<std::size_t>& indices) {
    ScenarioParams combination = spec.defaults;
    // An axis without values (the batch of a batch search, decided later) keeps the defaults'.
    for (std::size_t a = 0; a < axes.size(); ++a)
      if (axes[a]->size(spec) > 0) axes[a]->apply(spec, indices[a], combination);
    // Once per configuration (once when the matrix names none), its rules' settings applied.
    const std::vector<std::string> names =
        spec.configuration_names.empty() ? std::vector<std::string>{""} : spec.configuration_names;
    for (const std::string& name : names) {
      ScenarioParams p = combination;
      p.configuration = name;
      for (const auto& rule : spec.configurations) {
        if (rule.name != name || (!rule.device.empty() && rule.device != device) ||
            !matches_selector(spec, combination, rule.match))
          continue;
        for (const auto& [axis, value] : rule.set.items()) find_axis(axis)->read(json{{axis, value}}, axis.c_str(), p);
      }
      const bool holds_effective = spec.hold_effective_batch && !spec.batch_search;
      const int batch = p.batch;  // the batch axis's value: effective when held
      if (holds_effective) {
        p.effective_batch = batch;
        p.batch = batch / p.accumulation;
      } else {
        p.effective_batch = batch * p.accumulation;
      }
      // Strong scaling: the batch the matrix names is the global one, split over the ranks.
      const bool strong = p.scaling == ScalingMode::strong && !spec.batch_search;
      const int micro = p.batch;
      if (strong) {
        p.batch = micro / p.world_size;
        p.effective_batch = p.batch * p.accumulation;
      }
      apply_model_overrides(spec, p.model, p.model_options, p.dataset_options);
      for (const GateRule& rule : spec.gates)
        if (matches_selector(spec, p, rule.match)) p.gates.override_with(rule.thresholds);
      // The reducer is always there with several ranks: "always" only adds world size 1's twin.
      if (p.reducer == ReducerMode::always && p.world_size > 1) continue;
      const bool excluded = std::any_of(spec.exclude.begin(), spec.exclude.end(),
                                        [&](const json& e) { return matches_selector(spec, p, e); });
      if (excluded) continue;
      if (holds_effective && batch % p.accumulation != 0)
        throw InputError(spec.file, "axes.batch/axes.accumulation",
                         "hold_effective_batch: effective batch " + std::to_string(batch) +
                             " is not divisible by accumulation " + std::to_string(p.accumulation) +
                             " (exclude this combination or change the values)");
      if (strong && micro % p.world_size != 0)
        throw InputError(spec.file, "axes.batch/axes.world_size",
                         "scaling \"strong\": micro-batch " + std::to_string(micro) +
                             " is not divisible by world_size " + std::to_string(p.world_size) +
                             " (exclude this combination or change the values)");
      // The user's axes vary fastest: their first values come first (the baseline's).
      std::vector<std::size_t> user_sizes;
      for (const auto& [name, values] : spec.user_axes) user_sizes.push_back(values.size());
      if (user_sizes.empty()) {
        out.push_back(std::move(p));
        continue;
      }
      for_each_combination(user_sizes, [&](const std::vector<std::size_t>& chosen) {
        ScenarioParams q = p;
        for (std::size_t a = 0; a < chosen.size(); ++a)
          q.user_axes[spec.user_axes[a].first] = spec.user_axes[a].second[chosen[a]];
        out.push_back(std::move(q));
      });
    }
  });
  if (spec.configuration_names.empty()) return out;
  // A configuration that sets an axis makes that axis's combinations equal: measured once.
  std::vector<ScenarioParams> unique;
  std::set<std::string> seen;
  for (auto& p : out)
    if (seen.insert(scenario_key(p).dump()).second) unique.push_back(std::move(p));
  return unique;
}

}  // namespace tb
