#include <trainbench/runner/python_loop_worker.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include <trainbench/build_config.hpp>
#include <trainbench/runner/interrupt.hpp>
#include <trainbench/support/file_tail.hpp>

namespace tb {

using nlohmann::json;

PythonRuntime PythonRuntime::from_environment() {
  PythonRuntime r;
  const char* python = std::getenv("TRAINBENCH_PYTHON");
  r.interpreter = python && *python ? python : TRAINBENCH_PYTHON_EXECUTABLE;
  if (r.interpreter.empty()) r.interpreter = "python3";
  const char* path = std::getenv("TRAINBENCH_PYTHONPATH");
  r.package_dir = path && *path ? path : TRAINBENCH_SOURCE_DIR "/python";
  return r;
}

json python_settings(const ScenarioParams& p, const std::string& device, int threads) {
  return {{"id", scenario_id(p)},
          {"model", p.model},
          {"dataset", p.dataset},
          {"device", device},
          {"precision", to_string(p.precision)},
          {"workers", p.workers},
          {"accumulation", p.accumulation},
          {"batch", p.batch},
          {"seed", p.seed},
          {"learning_rate", p.learning_rate},
          {"optimizer", to_string(p.optimizer)},
          {"optimizer_impl", to_string(p.optimizer_impl)},
          {"compile", to_string(p.compile)},
          {"memory_format", to_string(p.memory_format)},
          {"pin_memory", p.pin_memory},
          {"cudnn_benchmark", p.cudnn_benchmark},
          {"cuda_graphs", p.cuda_graphs},
          {"threads", threads},
          {"user", p.user_axes},
          {"dataset_options", p.dataset_options},
          {"model_options", p.model_options}};
}

namespace {

// "PYTHONPATH=..." for a worker: trainbench's package first, the user's PYTHONPATH after it.
std::string worker_python_path(const PythonRuntime& runtime) {
  const char* user_path = std::getenv("PYTHONPATH");
  return "PYTHONPATH=" + runtime.package_dir + (user_path && *user_path ? std::string(":") + user_path : "");
}

// A list of numbers where null stands for a non-finite value (JSON has no NaN).
std::vector<double> numbers(const json& j, const char* key) {
  std::vector<double> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array())
    throw PythonLoopError("failed", std::string("the worker's segment: '") + key + "' is not a list");
  out.reserve(it->size());
  for (const auto& v : *it) {
    if (v.is_null()) out.push_back(std::numeric_limits<double>::quiet_NaN());
    else if (v.is_number()) out.push_back(v.get<double>());
    else throw PythonLoopError("failed", std::string("the worker's segment: '") + key + "' holds " + v.type_name());
  }
  return out;
}

}  // namespace

PythonSegment parse_python_segment(const json& j) {
  if (!j.is_object()) throw PythonLoopError("failed", "the worker's segment is not an object");
  PythonSegment s;
  s.warmup_steps = j.value("warmup_steps", 0);
  s.unmeasured_loss = numbers(j, "unmeasured_loss");
  s.step_s = numbers(j, "step_s");
  s.loss = numbers(j, "loss");
  if (s.loss.size() != s.step_s.size())
    throw PythonLoopError("failed", "the worker's segment has " + std::to_string(s.step_s.size()) + " step times and " +
                                        std::to_string(s.loss.size()) + " losses");
  for (const double t : s.step_s)
    if (!std::isfinite(t) || t < 0)
      throw PythonLoopError("failed", "the worker's segment has a step time that is not >= 0");
  if (const auto phases = j.find("phase_s"); phases != j.end() && phases->is_object()) {
    for (const auto& [name, values] : phases->items()) {
      const auto phase = parse_phase(name);
      if (!phase) throw PythonLoopError("failed", "the worker's segment names an unknown phase '" + name + "'");
      auto& out = s.phase_s[static_cast<std::size_t>(*phase)];
      out = numbers(*phases, name.c_str());
      if (out.size() != s.step_s.size())
        throw PythonLoopError("failed", "the worker's phase '" + name + "' has " + std::to_string(out.size()) +
                                            " values for " + std::to_string(s.step_s.size()) + " steps");
    }
  }
  if (const auto c = j.find("compile"); c != j.end() && c->is_object()) {
    if (c->contains("first_step_s") && (*c)["first_step_s"].is_number())
      s.first_step_s = (*c)["first_step_s"].get<double>();
    if (c->contains("recompiles") && (*c)["recompiles"].is_number_integer())
      s.recompiles = (*c)["recompiles"].get<int>();
  }
  if (const auto peak = j.find("peak_bytes"); peak != j.end() && peak->is_number_integer())
    s.peak_bytes = peak->get<long long>();
  return s;
}

PythonLoopWorker::PythonLoopWorker(const PythonRuntime& runtime, const std::string& stderr_path, double timeout_s,
                                   std::vector<std::string> argv)
    : stderr_path_(stderr_path), timeout_s_(timeout_s) {
  if (argv.empty()) argv = {runtime.interpreter, "-m", "trainbench.worker"};
  try {
    child_ = std::make_unique<ChildProcess>(argv, ChildOptions{.stderr_path = stderr_path,
                                                               .detach_from_terminal_signals = true,
                                                               .environment = {worker_python_path(runtime)}});
  } catch (const std::exception& e) {
    crashed(std::string("the Python loop worker could not be started: ") + e.what() +
            " (TRAINBENCH_PYTHON names the python to use)");
  }
  const json hello = request(json(), "hello", {});
  if (hello.value("hello", 0) != kPythonLoopProtocolVersion || hello.value("role", "") != "steps")
    crashed("the Python loop worker speaks " + hello.dump() + "; this trainbench speaks version " +
            std::to_string(kPythonLoopProtocolVersion) + " of the step-worker role (docs/worker-protocol.md)");
  python_ = hello.value("python", "");
  torch_ = hello.value("torch", "");
}

PythonLoopWorker::~PythonLoopWorker() = default;

void PythonLoopWorker::crashed(const std::string& what) {
  std::string message = what;
  if (child_) {
    child_.reset();  // kills and reaps it: its stderr is complete
  }
  const std::string tail = read_file_tail(stderr_path_);
  if (!tail.empty()) message += "; its stderr (" + stderr_path_ + ") ends:\n" + tail;
  throw PythonWorkerCrashed(message);
}

// Sends `message` (null: send nothing, read the hello) and reads the reply holding `reply_key`.
json PythonLoopWorker::request(const json& message, const char* reply_key, const GiveUp& give_up) {
  if (!child_) throw PythonWorkerCrashed("the Python loop worker is gone");
  if (!message.is_null() && !child_->write_line(message.dump())) crashed("the Python loop worker exited");
  const auto start = std::chrono::steady_clock::now();
  bool timed_out = false, gave_up = false;
  const auto line = child_->read_line([&] {
    if (give_up && give_up()) return gave_up = true;
    return timed_out = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s_;
  });
  if (gave_up) {
    child_.reset();
    throw Interrupted();
  }
  if (timed_out)
    crashed("the Python loop worker did not answer within " + std::to_string(static_cast<int>(timeout_s_)) +
            " s (python.timeout_s) and was killed");
  if (!line) {
    const ChildExit exit = child_->wait();
    crashed("the Python loop worker ended (" + exit.describe() + ")");
  }
  json reply;
  try {
    reply = json::parse(*line);
  } catch (const json::exception&) {
    crashed("the Python loop worker wrote a line that is not JSON: " + line->substr(0, 200));
  }
  if (!reply.is_object()) crashed("the Python loop worker wrote " + line->substr(0, 200));
  if (reply.contains("error")) {
    std::string text = reply["error"].is_string() ? reply["error"].get<std::string>() : reply["error"].dump();
    const std::string type = reply.value("type", ""), where = reply.value("where", "");
    if (!type.empty()) text = type + ": " + text;
    if (!where.empty()) text += " (" + where + ")";
    throw PythonLoopError(reply.value("status", "failed"), text, reply.value("field", ""));
  }
  if (!reply.contains(reply_key)) crashed("the Python loop worker answered " + line->substr(0, 200));
  return reply;
}

PythonBuilt PythonLoopWorker::build(const PythonLoopSpec& spec, const json& settings, const GiveUp& give_up) {
  const json reply = request({{"build", {{"file", spec.file}, {"function", spec.function}, {"settings", settings}}}},
                             "built", give_up);
  const json& b = reply["built"];
  PythonBuilt built;
  built.build_s = b.value("build_s", 0.0);
  built.mode = b.value("mode", "");
  built.parameters = b.value("parameters", 0LL);
  built.samples_per_step = b.value("samples_per_step", 0LL);
  built.tokens_per_sample = b.value("tokens_per_sample", 0LL);
  return built;
}

PythonSegment PythonLoopWorker::run(const PythonRunRequest& r, const GiveUp& give_up) {
  const json reply = request({{"run",
                               {{"warmup", r.warmup},
                                {"warmup_budget_s", r.warmup_budget_s},
                                {"min_steps", r.min_steps},
                                {"max_steps", r.max_steps},
                                {"budget_s", r.budget_s}}}},
                             "segment", give_up);
  return parse_python_segment(reply["segment"]);
}

int PythonLoopWorker::profile(int steps, const std::string& trace, bool nvtx, const GiveUp& give_up) {
  const json reply = request({{"profile", {{"steps", steps}, {"trace", trace}, {"nvtx", nvtx}}}}, "profiled", give_up);
  return reply["profiled"].value("steps", 0);
}

void PythonLoopWorker::finish() {
  if (!child_) return;
  try {
    request({{"finish", true}}, "bye", {});
  } catch (const std::exception&) {
    // Ending a session is best effort: what was measured is already in the harness.
  }
  child_.reset();
}

void check_python_loop(const PythonRuntime& runtime, const PythonLoopSpec& spec, const json& settings,
                       const std::string& stderr_path) {
  std::optional<std::string> line;
  ChildExit exit;
  try {
    ChildProcess child(
        {runtime.interpreter, "-m", "trainbench.worker", "--check", spec.file, spec.function, settings.dump()},
        ChildOptions{.stderr_path = stderr_path,
                     .detach_from_terminal_signals = true,
                     .environment = {worker_python_path(runtime)}});
    line = child.read_line([] { return interrupted(); });
    exit = child.wait();
  } catch (const std::exception& e) {
    throw PythonLoopError("invalid", std::string("the Python loop worker could not be started: ") + e.what() +
                                         " (TRAINBENCH_PYTHON names the python to use)");
  }
  if (interrupted()) throw Interrupted();
  json reply;
  try {
    if (line) reply = json::parse(*line);
  } catch (const json::exception&) {}
  if (reply.is_object() && reply.value("ok", false)) return;
  if (reply.is_object() && reply.contains("error")) {
    std::string text = reply["error"].is_string() ? reply["error"].get<std::string>() : reply["error"].dump();
    const std::string where = reply.value("where", "");
    if (!where.empty()) text += " (" + where + ")";
    throw PythonLoopError(reply.value("status", "invalid"), text, reply.value("field", "python.function"));
  }
  std::string message = "checking " + spec.file + " with " + runtime.interpreter + " failed (" + exit.describe() + ")";
  const std::string tail = read_file_tail(stderr_path);
  if (!tail.empty()) message += "; its stderr ends:\n" + tail;
  throw PythonLoopError("invalid", message, "python.file");
}

}  // namespace tb
