#include <trainbench/matrix/scenario.hpp>

#include <cstdio>
#include <stdexcept>
#include <utility>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/support/json_integer.hpp>

namespace tb {

std::string scenario_id(const ScenarioParams& p) {
  std::string id = scenario_id_without(p, "");
  return p.configuration.empty() ? id : id + "/" + p.configuration;
}

nlohmann::json scenario_key(const ScenarioParams& p) {
  nlohmann::json key = nlohmann::json::object();
  for (const ScenarioAxis& axis : scenario_axes()) {
    nlohmann::json value = axis.value(p);
    // Axes added after runs were recorded leave their default out: older keys still match.
    if (axis.key_omitted_when != nullptr && value == axis.key_omitted_when) continue;
    key[axis.name] = std::move(value);
  }
  if (!p.user_axes.empty()) key["user"] = p.user_axes;
  if (!p.configuration.empty()) key["configuration"] = p.configuration;
  return key;
}

std::string scenarios_digest(const std::vector<ScenarioParams>& scenarios) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& p : scenarios) {
    nlohmann::json k = scenario_key(p);
    k["model_options"] = p.model_options;
    k["dataset_options"] = p.dataset_options;
    k["seed"] = p.seed;
    k["learning_rate"] = p.learning_rate;
    k["momentum"] = p.momentum;
    if (p.weight_decay != 0.0) k["weight_decay"] = p.weight_decay;  // older digests unchanged
    k["stopping"] = p.stopping;
    if (is_data_parallel(p)) k["data_parallel"] = p.data_parallel;
    if (p.loop == LoopKind::python) k["python"] = {{"file", p.python.file}, {"function", p.python.function}};
    all.push_back(std::move(k));
  }
  std::uint64_t h = 14695981039346656037ULL;
  for (const unsigned char c : all.dump()) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void to_json(nlohmann::json& j, const StoppingRule& s) {
  j = {{"warmup_steps", s.warmup_steps},   {"min_steps", s.min_steps},         {"max_steps", s.max_steps},
       {"target_rel_ci", s.target_rel_ci}, {"time_budget_s", s.time_budget_s}, {"rounds", s.rounds},
       {"max_rounds", s.max_rounds},       {"interleave", s.interleave},       {"segment_warmup", s.segment_warmup}};
}
void from_json(const nlohmann::json& j, StoppingRule& s) {
  s.warmup_steps = integer_field(j, "warmup_steps", s.warmup_steps);
  s.min_steps = integer_field(j, "min_steps", s.min_steps);
  s.max_steps = integer_field(j, "max_steps", s.max_steps);
  s.target_rel_ci = number_field(j, "target_rel_ci", s.target_rel_ci);
  s.time_budget_s = number_field(j, "time_budget_s", s.time_budget_s);
  // Files from before segments measured one block: one round, nothing interleaved.
  s.rounds = integer_field(j, "rounds", 1);
  s.max_rounds = integer_field(j, "max_rounds", s.rounds);
  s.interleave = flag_field(j, "interleave", false);
  s.segment_warmup = integer_field(j, "segment_warmup", 0);
}

void to_json(nlohmann::json& j, const ProfileOptions& p) {
  j = {{"enabled", p.enabled}, {"window", p.window}, {"host_trace", p.host_trace},
       {"cupti", p.cupti},     {"kineto", p.kineto}, {"nvtx", p.nvtx},
       {"gzip", p.gzip}};
}
void from_json(const nlohmann::json& j, ProfileOptions& p) {
  p.enabled = flag_field(j, "enabled", p.enabled);
  p.window = integer_field(j, "window", p.window);
  p.host_trace = flag_field(j, "host_trace", p.host_trace);
  p.cupti = flag_field(j, "cupti", p.cupti);
  p.kineto = flag_field(j, "kineto", p.kineto);
  p.nvtx = flag_field(j, "nvtx", p.nvtx);
  p.gzip = flag_field(j, "gzip", p.gzip);
}

void to_json(nlohmann::json& j, const DataParallelOptions& d) { j = {{"bucket_mb", d.bucket_mb}}; }
void from_json(const nlohmann::json& j, DataParallelOptions& d) {
  d.bucket_mb = number_field(j, "bucket_mb", d.bucket_mb);
}

void to_json(nlohmann::json& j, const ScenarioParams& p) {
  j = scenario_key(p);
  j["learning_rate"] = p.learning_rate;
  if (p.optimizer == OptimizerKind::sgd) j["momentum"] = p.momentum;
  if (p.weight_decay != 0.0) j["weight_decay"] = p.weight_decay;
  j["effective_batch"] = p.effective_batch;
  j["seed"] = p.seed;
  j["dataset_options"] = p.dataset_options;
  j["model_options"] = p.model_options;
  j["stopping"] = p.stopping;
  j["profile"] = p.profile;
  j["contention"] = p.contention;
  if (!p.gates.empty()) j["gates"] = p.gates;
  if (!p.configuration.empty()) j["configuration"] = p.configuration;
  if (p.test_delay_ms > 0) j["test_delay_ms"] = p.test_delay_ms;
  if (is_data_parallel(p)) j["data_parallel"] = p.data_parallel;
  if (p.loop == LoopKind::python) j["python"] = {{"file", p.python.file}, {"function", p.python.function}};
}
void from_json(const nlohmann::json& j, ScenarioParams& p) {
  for (const ScenarioAxis& axis : scenario_axes()) axis.read(j, axis.name, p);  // each names its key
  p.learning_rate = number_field(j, "learning_rate", p.learning_rate);
  p.momentum = number_field(j, "momentum", p.momentum);
  p.weight_decay = number_field(j, "weight_decay", 0.0);
  if (j.contains("effective_batch")) {
    p.effective_batch = integer_field(j, "effective_batch", 0);
  } else {
    // In 64 bits: batch and accumulation of an edited file may multiply past an int.
    const long long product = static_cast<long long>(p.batch) * p.accumulation;
    if (!std::in_range<int>(product)) throw FieldError("batch", "batch * accumulation does not fit an integer");
    p.effective_batch = static_cast<int>(product);
  }
  p.seed = integer_field(j, "seed", p.seed);
  p.dataset_options = j.value("dataset_options", nlohmann::json::object());
  p.model_options = j.value("model_options", nlohmann::json::object());
  if (j.contains("stopping")) p.stopping = within("stopping", [&] { return j.at("stopping").get<StoppingRule>(); });
  if (j.contains("profile")) p.profile = within("profile", [&] { return j.at("profile").get<ProfileOptions>(); });
  p.test_delay_ms = number_field(j, "test_delay_ms", 0.0);
  if (j.contains("data_parallel") && j["data_parallel"].is_object())
    p.data_parallel = within("data_parallel", [&] { return j.at("data_parallel").get<DataParallelOptions>(); });
  if (j.contains("contention"))
    p.contention = within("contention", [&] { return j.at("contention").get<ContentionThresholds>(); });
  if (j.contains("gates")) p.gates = j["gates"].get<GateThresholds>();
  p.configuration = text_field(j, "configuration", "");
  if (const auto user = j.find("user"); user != j.end() && user->is_object()) p.user_axes = *user;
  if (const auto py = j.find("python"); py != j.end() && py->is_object()) {
    p.python.file = text_field(*py, "file", "");
    p.python.function = text_field(*py, "function", p.python.function);
  }
}

}  // namespace tb
