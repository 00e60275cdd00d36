#include <trainbench/runner/worker_client.hpp>

namespace tb {

using nlohmann::json;

namespace {

std::optional<json> parse_reply_line(const std::optional<std::string>& line) {
  if (!line) return std::nullopt;
  try {
    return json::parse(*line);
  } catch (const json::exception&) { return std::nullopt; }
}

}  // namespace

WorkerClient::WorkerClient(const std::vector<std::string>& argv, const ChildOptions& options) {
  try {
    child_ = std::make_unique<ChildProcess>(argv, options);
  } catch (const std::exception& e) { throw WorkerStartError(WorkerStartError::Kind::not_started, e.what()); }
}

const WorkerHello& WorkerClient::await_hello() {
  const auto first = parse_reply_line(child_->read_line());
  if (first && first->is_object() && first->contains("error")) {
    WorkerRefusal refusal;
    try {
      refusal = first->get<WorkerRefusal>();
    } catch (const json::exception&) { refusal.error = first->dump(); }
    throw WorkerStartError(WorkerStartError::Kind::refused, refusal.error);
  }
  if (!first || !first->is_object() || !first->contains("hello")) {
    const ChildExit how = child_->wait();
    throw WorkerStartError(WorkerStartError::Kind::silent, "ended with " + how.describe() + " during start-up", how);
  }
  try {
    hello_ = first->get<WorkerHello>();
  } catch (const WorkerProtocolError& e) {
    throw WorkerStartError(WorkerStartError::Kind::incompatible, e.what());
  } catch (const json::exception& e) {
    throw WorkerStartError(WorkerStartError::Kind::incompatible,
                           std::string("its hello does not follow worker protocol version ") +
                               std::to_string(kWorkerProtocolVersion) + ": " + e.what());
  }
  return hello_;
}

WorkerClient::~WorkerClient() = default;

template <typename Reply>
std::optional<Reply> WorkerClient::request(const json& message, const GiveUp& give_up) {
  if (!child_->write_line(message.dump())) return std::nullopt;
  const auto reply = parse_reply_line(child_->read_line(give_up));
  if (!reply || !reply->is_object() || reply->contains("error")) return std::nullopt;
  try {
    return reply->get<Reply>();
  } catch (const json::exception&) { return std::nullopt; }
}

std::optional<SegmentReply> WorkerClient::segment(const SegmentRequest& r, const GiveUp& give_up) {
  return request<SegmentReply>(r, give_up);
}

std::optional<FinishOneReply> WorkerClient::finish_one(std::size_t scenario, const GiveUp& give_up) {
  return request<FinishOneReply>(FinishOneRequest{scenario}, give_up);
}

std::optional<SavedReply> WorkerClient::save() { return request<SavedReply>(SaveRequest{}, {}); }

std::optional<FinishedReply> WorkerClient::finish() { return request<FinishedReply>(FinishRequest{}, {}); }

ChildExit WorkerClient::wait() { return child_->wait(); }

}  // namespace tb
