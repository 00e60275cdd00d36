#include <trainbench/training/torch/registry.hpp>

#include <stdexcept>

#include <trainbench/support/error.hpp>

namespace tb {

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add_model(ModelEntry entry) {
  const std::string name = entry.name;
  models_[name] = std::move(entry);
}

void Registry::add_dataset(DatasetEntry entry) {
  // Every dataset can hand its batches over once and have them kept on the device (trainer.hpp):
  // the compute-only mode of published throughput benchmarks. No default is written into the
  // resolved options, so a matrix without it keeps its scenarios' keys and digests.
  entry.options.push_back({kPlacementOption,
                           OptionType::string_enum,
                           {},
                           {},
                           {"host", "device"},
                           nullptr,
                           "host (default): a fresh batch from the loader every micro-batch, copied to the "
                           "device; device: a few batches made once and kept on the device, reused every step "
                           "(compute only: no loading, no copy)"});
  const std::string name = entry.name;
  datasets_[name] = std::move(entry);
}

namespace {
template <typename Map>
std::string known_names(const Map& map) {
  std::string out;
  for (const auto& [name, _] : map) out += (out.empty() ? "" : ", ") + name;
  return out;
}
}  // namespace

const ModelEntry& Registry::model(const std::string& name) const {
  const auto it = models_.find(name);
  if (it == models_.end())
    throw std::invalid_argument("unknown model '" + name + "' (known: " + known_names(models_) + ")");
  return it->second;
}

const DatasetEntry& Registry::dataset(const std::string& name) const {
  const auto it = datasets_.find(name);
  if (it == datasets_.end())
    throw std::invalid_argument("unknown dataset '" + name + "' (known: " + known_names(datasets_) + ")");
  return it->second;
}

std::vector<std::string> Registry::model_names() const {
  std::vector<std::string> names;
  for (const auto& [name, _] : models_) names.push_back(name);
  return names;
}

std::vector<std::string> Registry::dataset_names() const {
  std::vector<std::string> names;
  for (const auto& [name, _] : datasets_) names.push_back(name);
  return names;
}

void Registry::fill_parse_options(MatrixParseOptions& options) const {
  options.known_models = model_names();
  options.known_datasets = dataset_names();
  for (const auto& [name, m] : models_)
    options.model_specs[name] = {{m.options, m.option_rules}, m.default_dataset, m.default_dataset_options};
  for (const auto& [name, d] : datasets_) options.dataset_specs[name] = {d.options, d.option_rules};
}

std::int64_t option_int(const nlohmann::json& options, const char* section, const char* key, std::int64_t fallback) {
  if (!options.is_object() || !options.contains(key)) return fallback;
  const auto& v = options.at(key);
  TB_CHECK_INPUT(v.is_number_integer() && v.get<std::int64_t>() > 0, "matrix", std::string(section) + "." + key,
                 "must be a positive integer, got ", v.dump());
  return v.get<std::int64_t>();
}

}  // namespace tb
