#include <trainbench/results/results.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <trainbench/results/durable_file.hpp>
#include <trainbench/results/results_upgrade.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/json_input.hpp>
#include <trainbench/support/json_integer.hpp>

namespace tb {

namespace {
// JSON has no NaN or infinity: nlohmann writes them as null, and a diverged loss is a real
// outcome (fp16 without scaling), so null reads back as NaN instead of failing the whole file.
double number_or_nan(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::numeric_limits<double>::quiet_NaN();
  return number_field(j, key, 0.0);
}

// A list of numbers (null read as NaN when `null_is_nan`); FieldError naming the entry.
std::vector<double> numbers(const nlohmann::json& j, const char* key, bool null_is_nan) {
  std::vector<double> out;
  if (!j.contains(key)) return out;
  const auto& list = j.at(key);
  if (!list.is_array()) throw FieldError(key, "must be a list of numbers, got " + excerpt(list));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& v = list[i];
    if (v.is_null() && null_is_nan) out.push_back(std::numeric_limits<double>::quiet_NaN());
    else if (v.is_number()) out.push_back(v.get<double>());
    else throw FieldError(std::string(key) + "[" + std::to_string(i) + "]", "must be a number, got " + excerpt(v));
  }
  return out;
}

// A list of objects, each read by from_json within its path ("samples.segments[2].median_s").
template <typename T>
std::vector<T> objects(const nlohmann::json& j, const char* key) {
  std::vector<T> out;
  if (!j.contains(key)) return out;
  const auto& list = j.at(key);
  if (!list.is_array()) throw FieldError(key, "must be a list, got " + excerpt(list));
  for (std::size_t i = 0; i < list.size(); ++i)
    out.push_back(within(std::string(key) + "[" + std::to_string(i) + "]", [&] {
      if (!list[i].is_object()) throw FieldError("", "must be an object, got " + excerpt(list[i]));
      return list[i].get<T>();
    }));
  return out;
}

// The keys reports and comparisons read from metrics.disturbance, with the type they read them
// as: checked here once, so an edited file is refused by name instead of throwing mid-report.
void check_disturbance(const nlohmann::json& d) {
  if (!d.is_object()) throw FieldError("metrics.disturbance", "must be an object");
  using Is = bool (nlohmann::json::*)() const noexcept;
  const auto expect = [&](const char* key, Is is, const char* what) {
    const auto it = d.find(key);
    if (it != d.end() && !((*it).*is)())
      throw FieldError(std::string("metrics.disturbance.") + key, std::string("must be ") + what);
  };
  expect("contended", &nlohmann::json::is_boolean, "true or false");
  expect("reason", &nlohmann::json::is_string, "a string");
  expect("other_cpu_cores", &nlohmann::json::is_number, "a number");
}
}  // namespace

void to_json(nlohmann::json& j, const Segment& s) {
  j = {{"round", s.round}, {"steps", s.steps}, {"median_s", s.median_s}, {"started_s", s.started_s}};
  if (s.cpu_s) j["cpu_s"] = *s.cpu_s;
  if (s.load && s.load->available) j["load"] = *s.load;
}
void from_json(const nlohmann::json& j, Segment& s) {
  s.round = integer_field(j, "round", 0);
  s.steps = integer_field(j, "steps", 0);
  s.median_s = number_field(j, "median_s", 0.0);
  s.started_s = number_field(j, "started_s", 0.0);
  if (const auto it = j.find("cpu_s"); it != j.end() && it->is_number()) s.cpu_s = it->get<double>();
  if (const auto it = j.find("load"); it != j.end()) {
    try {
      s.load = it->get<SegmentLoad>();
    } catch (const nlohmann::json::exception& e) {
      throw FieldError("segments[].load", std::string("must be an object of numbers (") + e.what() + ")");
    }
  }
}

void to_json(nlohmann::json& j, const PhaseStat& p) {
  j = {{"name", p.name}, {"median_s", p.median_s}, {"mean_s", p.mean_s}, {"share", p.share}};
}
void from_json(const nlohmann::json& j, PhaseStat& p) {
  p.name = required_text(j, "name");
  p.median_s = number_field(j, "median_s", 0.0);
  p.mean_s = number_field(j, "mean_s", 0.0);
  p.share = number_field(j, "share", 0.0);
}

void to_json(nlohmann::json& j, const MemoryStats& m) {
  j = {{"peak_allocated_bytes", m.peak_allocated_bytes},
       {"peak_reserved_bytes", m.peak_reserved_bytes},
       {"alloc_retries", m.alloc_retries},
       {"peak_rss_bytes", m.peak_rss_bytes}};
}
void from_json(const nlohmann::json& j, MemoryStats& m) {
  m.peak_allocated_bytes = integer_field(j, "peak_allocated_bytes", std::int64_t{0});
  m.peak_reserved_bytes = integer_field(j, "peak_reserved_bytes", std::int64_t{0});
  m.alloc_retries = integer_field(j, "alloc_retries", std::int64_t{0});
  m.peak_rss_bytes = integer_field(j, "peak_rss_bytes", std::int64_t{0});
}

void to_json(nlohmann::json& j, const ScenarioResult& r) {
  j = nlohmann::json::object();
  j["id"] = r.id;
  j["params"] = r.params;
  j["status"] = to_string(r.status);
  j["message"] = r.message;
  j["metrics"] = {{"warmup_steps", r.warmup_steps},
                  {"measured_steps", r.measured_steps},
                  {"stop_reason", r.stop_reason},
                  {"converged", r.converged},
                  {"step_time_s", r.step_time_s},
                  {"samples_per_s", r.samples_per_s},
                  {"tokens_per_s", r.tokens_per_s},
                  {"phases", r.phases},
                  {"loss_start", r.loss_start},
                  {"loss_end", r.loss_end},
                  {"skipped_steps", r.skipped_steps},
                  {"final_loss_scale", r.final_loss_scale},
                  {"memory", r.memory},
                  {"wall_s", r.wall_s},
                  {"disturbance", r.disturbance ? nlohmann::json(*r.disturbance) : nlohmann::json::object()}};
  j["samples"] = {{"step_time_s", r.step_times_s}, {"loss", r.loss_curve}, {"segments", r.segments}};
  j["provenance"] = r.provenance;
  j["extra"] = r.extra.is_object() ? r.extra : nlohmann::json::object();
  write_section(j["extra"], "comparison", r.comparison);
  write_section(j["extra"], "loss_parity", r.loss_parity);
  write_section(j["extra"], "python_loop", r.python_loop);
  write_section(j["extra"], "data_parallel", r.data_parallel);
  write_section(j["extra"], "profile", r.profile);
  write_section(j["extra"], "capacity", r.capacity);
  write_section(j["extra"], "energy", r.energy);
  write_section(j["extra"], "dataset", r.dataset);
  write_section(j["extra"], "flops_per_sample", r.flops_per_sample);
}

void from_json(const nlohmann::json& j, ScenarioResult& r) {
  if (!j.is_object()) throw FieldError("", "must be an object, got " + excerpt(j));
  r.id = required_text(j, "id");
  r.params = required_field(j, "params", [](const nlohmann::json& p) {
    if (!p.is_object()) throw FieldError("", "must be an object, got " + excerpt(p));
    return p.get<ScenarioParams>();
  });
  r.status = within("status", [&] { return parse_status(required_text(j, "status")); });
  r.message = text_field(j, "message", "");
  required_field(j, "metrics", [&](const nlohmann::json& m) {
    if (!m.is_object()) throw FieldError("", "must be an object, got " + excerpt(m));
    r.warmup_steps = integer_field(m, "warmup_steps", 0);
    r.measured_steps = integer_field(m, "measured_steps", 0);
    r.stop_reason = text_field(m, "stop_reason", "");
    r.converged = flag_field(m, "converged", r.stop_reason == "converged");
    if (m.contains("step_time_s"))
      r.step_time_s = within("step_time_s", [&] { return m.at("step_time_s").get<Distribution>(); });
    r.samples_per_s = number_field(m, "samples_per_s", 0.0);
    r.tokens_per_s = number_field(m, "tokens_per_s", 0.0);
    r.phases = objects<PhaseStat>(m, "phases");
    r.loss_start = number_or_nan(m, "loss_start");
    r.loss_end = number_or_nan(m, "loss_end");
    r.skipped_steps = integer_field(m, "skipped_steps", std::int64_t{0});
    r.final_loss_scale = number_field(m, "final_loss_scale", 0.0);
    if (m.contains("memory")) r.memory = within("memory", [&] { return m.at("memory").get<MemoryStats>(); });
    r.wall_s = number_field(m, "wall_s", 0.0);
    return 0;
  });
  const auto& m = j.at("metrics");
  if (const auto it = m.find("disturbance"); it != m.end()) {
    check_disturbance(*it);
    if (!it->empty()) r.disturbance = within("metrics.disturbance", [&] { return it->get<Disturbance>(); });
  }
  if (j.contains("provenance"))
    r.provenance = within("provenance", [&] { return j.at("provenance").get<ScenarioProvenance>(); });
  if (j.contains("samples")) {
    within("samples", [&] {
      const auto& s = j.at("samples");
      if (!s.is_object()) throw FieldError("", "must be an object, got " + excerpt(s));
      r.step_times_s = numbers(s, "step_time_s", false);
      r.loss_curve = numbers(s, "loss", true);
      r.segments = objects<Segment>(s, "segments");
      return 0;
    });
  }
  r.extra = j.value("extra", nlohmann::json::object());
  if (!r.extra.is_object()) throw FieldError("extra", "must be an object, got " + excerpt(r.extra));
  within("extra", [&] {
    read_section(r.extra, "comparison", r.comparison);
    read_section(r.extra, "loss_parity", r.loss_parity);
    read_section(r.extra, "python_loop", r.python_loop);
    read_section(r.extra, "data_parallel", r.data_parallel);
    read_section(r.extra, "profile", r.profile);
    read_section(r.extra, "capacity", r.capacity);
    read_section(r.extra, "energy", r.energy);
    read_section(r.extra, "dataset", r.dataset);
    read_section(r.extra, "flops_per_sample", r.flops_per_sample);
    return 0;
  });
}

void to_json(nlohmann::json& j, const RunResult& r) {
  j = {{"schema_version", r.schema_version},
       {"run_id", r.run_id},
       {"matrix", {{"name", r.matrix_name}, {"file", r.matrix_file}, {"digest", r.matrix_digest}}},
       {"baseline_id", r.baseline_id},
       {"environment", r.environment},
       {"scenarios", r.scenarios},
       {"provenance", r.provenance},
       {"extra", r.extra.is_object() ? r.extra : nlohmann::json::object()}};
  write_section(j["extra"], "summary", r.summary);
  write_section(j["extra"], "capacity", r.capacity);
  write_section(j["extra"], "scaling", r.scaling);
  write_section(j["extra"], "peaks", r.peaks);
}

void from_json(const nlohmann::json& j, RunResult& r) {
  const int version = integer_field(j, "schema_version", 0);
  if (version >= kOldestResultsSchemaVersion && version < kResultsSchemaVersion) {
    from_json(upgraded_results(j, version), r);
    return;
  }
  r.schema_version = version;
  r.run_id = required_text(j, "run_id");
  if (j.contains("matrix")) {
    within("matrix", [&] {
      const auto& m = j.at("matrix");
      if (!m.is_object()) throw FieldError("", "must be an object, got " + excerpt(m));
      r.matrix_name = text_field(m, "name", "");
      r.matrix_file = text_field(m, "file", "");
      r.matrix_digest = text_field(m, "digest", "");
      return 0;
    });
  }
  r.baseline_id = text_field(j, "baseline_id", "");
  r.environment = j.value("environment", nlohmann::json::object());
  r.scenarios = objects<ScenarioResult>(j, "scenarios");
  r.extra = j.value("extra", nlohmann::json::object());
  if (!r.extra.is_object()) throw FieldError("extra", "must be an object, got " + excerpt(r.extra));
  read_section(r.extra, "summary", r.summary);
  read_section(r.extra, "capacity", r.capacity);
  read_section(r.extra, "scaling", r.scaling);
  read_section(r.extra, "peaks", r.peaks);
  if (j.contains("provenance"))
    r.provenance = within("provenance", [&] { return j.at("provenance").get<RunProvenance>(); });
}

RunResult load_results(const std::string& path_in) {
  namespace fs = std::filesystem;
  std::string path = path_in;
  std::error_code ec;  // a path too long to look up is the reader's "cannot open", not a throw
  if (fs::is_directory(path, ec)) path = (fs::path(path) / "results.json").string();
  const nlohmann::json j = read_json_file(path, "results file");
  TB_CHECK_INPUT(j.is_object(), path, "", "expected a JSON object");
  TB_CHECK_INPUT(j.contains("schema_version") && j["schema_version"].is_number_integer(), path, "schema_version",
                 "missing or not an integer");
  const int version = j["schema_version"].get<int>();
  TB_CHECK_INPUT(version >= kOldestResultsSchemaVersion && version <= kResultsSchemaVersion, path, "schema_version",
                 "unsupported version ", version, " (this trainbench reads ", kOldestResultsSchemaVersion, " to ",
                 kResultsSchemaVersion, ")");
  TB_CHECK_INPUT(j.contains("scenarios") && j["scenarios"].is_array(), path, "scenarios", "missing or not an array");
  try {
    return j.get<RunResult>();
  } catch (const FieldError& e) {  // names the field's path: scenarios[3].metrics.step_time_s.median
    throw InputError(path, e.field(), e.reason());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, "scenarios", json_error_text(e));
  } catch (const std::exception& e) { throw InputError(path, "scenarios", e.what()); }
}

void save_results(const RunResult& run, const std::string& path) {
  // replace: a message or a command-line argument that is not UTF-8 must not lose the run.
  write_file_durably(path, nlohmann::json(run).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n');
}

const ScenarioResult* find_scenario(const RunResult& run, const std::string& id) {
  for (const auto& s : run.scenarios)
    if (s.id == id) return &s;
  return nullptr;
}

std::int64_t peak_memory_bytes(const ScenarioResult& s) {
  return s.memory.peak_allocated_bytes > 0 ? s.memory.peak_allocated_bytes : s.memory.peak_rss_bytes;
}

}  // namespace tb
