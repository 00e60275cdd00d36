#include <trainbench/runner/worker_protocol.hpp>

namespace tb {

using nlohmann::json;

void check_protocol_version(int version, const std::string& who) {
  if (version == kWorkerProtocolVersion) return;
  throw WorkerProtocolError(who + " speaks worker protocol version " + std::to_string(version) +
                            ", this trainbench speaks version " + std::to_string(kWorkerProtocolVersion) +
                            " (docs/worker-protocol.md): use a worker built for version " +
                            std::to_string(kWorkerProtocolVersion));
}

void to_json(json& j, const WorkerScenario& s) { j = {{"id", s.id}, {"key", s.key}}; }
void from_json(const json& j, WorkerScenario& s) {
  s.id = j.at("id").get<std::string>();
  s.key = j.at("key");
}

void to_json(json& j, const WorkerHello& h) {
  j = {{"hello", h.version}, {"scenarios", h.scenarios},   {"digest", h.digest},
       {"rounds", h.rounds}, {"max_rounds", h.max_rounds}, {"seed", h.seed}};
}
void from_json(const json& j, WorkerHello& h) {
  const auto version = j.find("hello");
  if (!j.is_object() || version == j.end() || !version->is_number_integer())
    throw WorkerProtocolError("not a worker hello: " + j.dump().substr(0, 200));
  h.version = version->get<int>();
  check_protocol_version(h.version, "the worker");
  h.scenarios = j.at("scenarios").get<std::vector<WorkerScenario>>();
  h.digest = j.at("digest").get<std::string>();
  h.rounds = j.at("rounds").get<int>();
  h.max_rounds = j.at("max_rounds").get<int>();
  h.seed = j.at("seed").get<std::uint64_t>();
}

void to_json(json& j, const WorkerRefusal& r) {
  j = {{"error", r.error}};
  if (r.exit) j["exit"] = *r.exit;
}
void from_json(const json& j, WorkerRefusal& r) {
  r.error = j.at("error").get<std::string>();
  if (const auto it = j.find("exit"); it != j.end()) r.exit = it->get<int>();
}

void to_json(json& j, const SegmentReply& r) {
  j = {{"active", r.active}, {"converged", r.converged}};
  if (r.segment) j["segment"] = *r.segment;
  if (r.snapshot) j["snapshot"] = *r.snapshot;
  if (r.message) j["message"] = *r.message;
  if (r.contention) j["contention"] = *r.contention;
}
void from_json(const json& j, SegmentReply& r) {
  r.active = j.at("active").get<bool>();
  r.converged = j.at("converged").get<bool>();
  r.segment.reset();
  if (const auto it = j.find("segment"); it != j.end()) r.segment = it->get<Segment>();
  r.snapshot.reset();
  if (const auto it = j.find("snapshot"); it != j.end()) {
    try {
      r.snapshot = it->get<ScenarioResult>();
    } catch (const std::exception&) {}
  }
  r.message.reset();
  if (const auto it = j.find("message"); it != j.end()) r.message = it->get<std::string>();
  r.contention.reset();
  if (const auto it = j.find("contention"); it != j.end()) r.contention = it->get<ContentionThresholds>();
}

void to_json(json& j, const FinishOneReply& r) { j = {{"result", r.result}}; }
void from_json(const json& j, FinishOneReply& r) { r.result = j.at("result").get<ScenarioResult>(); }

void to_json(json& j, const SavedReply&) { j = {{"saved", true}}; }
void from_json(const json& j, SavedReply&) { (void)j.at("saved").get<bool>(); }

void to_json(json& j, const FinishedReply& r) { j = {{"results", r.results}}; }
void from_json(const json& j, FinishedReply& r) { r.results = j.at("results").get<std::string>(); }

void to_json(json& j, const SegmentRequest& r) {
  j = {{"segment", r.scenario}, {"round", r.round}};
  if (r.snapshot) j["snapshot"] = true;
}
void from_json(const json& j, SegmentRequest& r) {
  r.scenario = j.at("segment").get<std::size_t>();
  r.round = j.at("round").get<int>();
  r.snapshot = j.value("snapshot", false);
}

void to_json(json& j, const FinishOneRequest& r) { j = {{"finish_one", r.scenario}}; }
void from_json(const json& j, FinishOneRequest& r) { r.scenario = j.at("finish_one").get<std::size_t>(); }

void to_json(json& j, const SaveRequest&) { j = {{"save", true}}; }
void from_json(const json& j, SaveRequest&) { (void)j.at("save").get<bool>(); }

void to_json(json& j, const FinishRequest&) { j = {{"finish", true}}; }
void from_json(const json& j, FinishRequest&) { (void)j.at("finish").get<bool>(); }

void to_json(json& j, const DropRequest& r) { j = {{"drop", r.scenario}, {"why", r.why}}; }
void from_json(const json& j, DropRequest& r) {
  r.scenario = j.at("drop").get<std::size_t>();
  r.why = j.at("why").get<std::string>();
}

void to_json(json& j, const RankPlan& p) {
  j = {{"protocol", p.version}, {"scenarios", p.scenarios}, {"out_dir", p.out_dir}};
}
void from_json(const json& j, RankPlan& p) {
  p.version = j.at("protocol").get<int>();
  check_protocol_version(p.version, "rank 0");
  p.scenarios = j.at("scenarios").get<std::vector<ScenarioParams>>();
  p.out_dir = j.at("out_dir").get<std::string>();
}

WorkerRequest parse_request(const json& message) {
  try {
    if (message.is_object()) {
      if (message.contains("segment")) return message.get<SegmentRequest>();
      if (message.contains("finish_one")) return message.get<FinishOneRequest>();
      if (message.contains("save")) return message.get<SaveRequest>();
      if (message.contains("finish")) return message.get<FinishRequest>();
      if (message.contains("drop")) return message.get<DropRequest>();
    }
  } catch (const json::exception& e) {
    throw WorkerProtocolError("a malformed request " + message.dump().substr(0, 200) + ": " + e.what());
  }
  throw WorkerProtocolError("not a request of worker protocol version " + std::to_string(kWorkerProtocolVersion) +
                            ": " + message.dump().substr(0, 200));
}

json request_json(const WorkerRequest& request) {
  return std::visit([](const auto& r) { return json(r); }, request);
}

}  // namespace tb
