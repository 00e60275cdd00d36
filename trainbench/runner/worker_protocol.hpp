// The worker protocol: how a parent drives processes that keep scenarios alive and measure one
// segment whenever asked. One vocabulary for every such process: `trainbench worker` for `ab`
// (one per build) and for `run --isolate` (one per scenario), the ranks of a data-parallel run
// (rank 0 leads, the others follow), and workers written in other languages. The messages are
// JSON objects, one per line on a pipe (a worker's stdin and stdout) or one per key in the
// ranks' rendezvous store. docs/worker-protocol.md describes them for people writing a worker;
// schema/worker-protocol.schema.json is their schema, and a test checks that every struct here
// writes messages that validate against it.
//
// A worker opens with a hello naming its protocol version; a parent refuses a hello of another
// version (WorkerProtocolError, with both versions in the message). The version changes only when
// a message changes meaning or gains a required field: optional fields and new requests that only
// some workers receive (drop) keep it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/results/results.hpp>

namespace tb {

inline constexpr int kWorkerProtocolVersion = 1;

// A message that is not one of the protocol's, or a hello of another version.
class WorkerProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws WorkerProtocolError unless `version` is kWorkerProtocolVersion; `who` names the peer in
// the message ("NEW worker (build/trainbench)").
void check_protocol_version(int version, const std::string& who);

// ---- worker -> parent

// A scenario as the worker's expansion of the matrix has it; requests name it by its index.
struct WorkerScenario {
  std::string id;      // "mlp/fp32/w0/a1/b32"
  nlohmann::json key;  // scenario_key: its value on every axis (an object)
};

// The first line of a worker: its protocol version ({"hello": 1}) and what it holds.
struct WorkerHello {
  int version = kWorkerProtocolVersion;
  std::vector<WorkerScenario> scenarios;
  std::string digest;  // scenarios_digest of the worker's expansion: the same in every worker of one side
  int rounds = 6;      // the matrix's steps.rounds, steps.max_rounds and seed
  int max_rounds = 6;
  std::uint64_t seed = 42;
};

// Instead of a hello (then the worker exits with `exit`) or of a reply: what went wrong.
struct WorkerRefusal {
  std::string error;
  std::optional<int> exit;
};

// After a segment: the scenario is still alive, and whether its interval is within the target.
// `snapshot` (when asked for) is its result so far; `message` says why a scenario that is no
// longer active ended (ranks send it to rank 0). `segment`: the segment just measured (its
// median and what else ran on the host meanwhile), which `ab` pairs with the other build's.
struct SegmentReply {
  bool active = false;
  bool converged = false;
  std::optional<Segment> segment;
  std::optional<ScenarioResult> snapshot;
  std::optional<std::string> message;
  // With `segment`: the scenario's contention thresholds (the matrix's "contention"), which a
  // paired session judges each round's segments by.
  std::optional<ContentionThresholds> contention;
};

struct FinishOneReply {
  ScenarioResult result;  // the scenario's final result
};

struct SavedReply {};

struct FinishedReply {
  std::string results;  // the results.json the worker wrote
};

// ---- parent -> worker

// Measure one segment of scenario `scenario` in `round` (0-based), building it first if needed.
struct SegmentRequest {
  std::size_t scenario = 0;
  int round = 0;
  bool snapshot = false;  // also send its result so far
};

// Finish one scenario (divergence check, memory budget, profiling pass) and send its result.
struct FinishOneRequest {
  std::size_t scenario = 0;
};

// Write the results measured so far (an `ab` worker; `run --isolate` workers refuse it).
struct SaveRequest {};

// The session is over: finish every scenario, write the results, answer and exit.
struct FinishRequest {};

// End a scenario as failed for a reason outside it (another rank failed it); no reply.
struct DropRequest {
  std::size_t scenario = 0;
  std::string why;
};

using WorkerRequest = std::variant<SegmentRequest, FinishOneRequest, SaveRequest, FinishRequest, DropRequest>;

// The request `message` is; WorkerProtocolError when it is none.
WorkerRequest parse_request(const nlohmann::json& message);
nlohmann::json request_json(const WorkerRequest& request);

// ---- rank 0 -> the other ranks (through the store, in place of a hello)

// The scenarios every rank builds (its table, in rank 0's order) and where traces go.
struct RankPlan {
  int version = kWorkerProtocolVersion;
  std::vector<ScenarioParams> scenarios;
  std::string out_dir;
};

void to_json(nlohmann::json& j, const WorkerScenario& s);
void from_json(const nlohmann::json& j, WorkerScenario& s);
void to_json(nlohmann::json& j, const WorkerHello& h);
// Checks the version first: a hello of another version throws WorkerProtocolError.
void from_json(const nlohmann::json& j, WorkerHello& h);
void to_json(nlohmann::json& j, const WorkerRefusal& r);
void from_json(const nlohmann::json& j, WorkerRefusal& r);
void to_json(nlohmann::json& j, const SegmentReply& r);
// A snapshot that does not parse is left out (it only fills results.json between rounds).
void from_json(const nlohmann::json& j, SegmentReply& r);
void to_json(nlohmann::json& j, const FinishOneReply& r);
void from_json(const nlohmann::json& j, FinishOneReply& r);
void to_json(nlohmann::json& j, const SavedReply& r);
void from_json(const nlohmann::json& j, SavedReply& r);
void to_json(nlohmann::json& j, const FinishedReply& r);
void from_json(const nlohmann::json& j, FinishedReply& r);
void to_json(nlohmann::json& j, const SegmentRequest& r);
void from_json(const nlohmann::json& j, SegmentRequest& r);
void to_json(nlohmann::json& j, const FinishOneRequest& r);
void from_json(const nlohmann::json& j, FinishOneRequest& r);
void to_json(nlohmann::json& j, const SaveRequest& r);
void from_json(const nlohmann::json& j, SaveRequest& r);
void to_json(nlohmann::json& j, const FinishRequest& r);
void from_json(const nlohmann::json& j, FinishRequest& r);
void to_json(nlohmann::json& j, const DropRequest& r);
void from_json(const nlohmann::json& j, DropRequest& r);
void to_json(nlohmann::json& j, const RankPlan& p);
void from_json(const nlohmann::json& j, RankPlan& p);

}  // namespace tb
