// The parent's side of the worker protocol (worker_protocol.hpp) over a worker process's pipes:
// starts the worker, reads and checks its hello, then sends one request at a time and reads the
// typed reply. Every parent that drives worker processes (`ab`'s pair, `run --isolate`'s one per
// scenario) goes through this class, so a worker in another language needs to satisfy only it.
//
// Destroying a client kills (SIGKILL) and reaps a worker still running.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <trainbench/runner/child_process.hpp>
#include <trainbench/runner/worker_protocol.hpp>

namespace tb {

// Why a worker did not become ready. what() says it in full; detail() is the part after the
// worker's name (its refusal, or how it ended).
class WorkerStartError : public std::runtime_error {
 public:
  enum class Kind {
    not_started,   // the program could not be started (no such file, not executable)
    refused,       // it answered with an error (e.g. it refused the matrix)
    silent,        // it ended, or wrote something that is not a hello, before its hello
    incompatible,  // its hello is of another protocol version
  };
  WorkerStartError(Kind kind, const std::string& message, ChildExit exit = {})
      : std::runtime_error(message), kind_(kind), exit_(exit) {}
  Kind kind() const noexcept { return kind_; }
  // How the worker ended (kind silent only).
  const ChildExit& exit() const noexcept { return exit_; }

 private:
  Kind kind_;
  ChildExit exit_;
};

class WorkerClient {
 public:
  // Starts `argv`; WorkerStartError (not_started) when it cannot. Call await_hello() next:
  // starting several workers before awaiting any lets them start up side by side.
  explicit WorkerClient(const std::vector<std::string>& argv, const ChildOptions& options = {});
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Reads and checks the worker's hello; WorkerStartError when it does not become ready.
  const WorkerHello& await_hello();
  // The hello, once await_hello() returned.
  const WorkerHello& hello() const { return hello_; }

  // Each sends one request and returns the reply; nullopt when the worker is gone, answers
  // something other than that reply (a refusal included), or `give_up` said true while waiting
  // (asked every 100 ms; the worker is then left running, mid-request).
  using GiveUp = std::function<bool()>;
  std::optional<SegmentReply> segment(const SegmentRequest& request, const GiveUp& give_up = {});
  std::optional<FinishOneReply> finish_one(std::size_t scenario, const GiveUp& give_up = {});
  std::optional<SavedReply> save();
  std::optional<FinishedReply> finish();

  // Closes the worker's stdin (it sees end of input and exits) and waits for it.
  ChildExit wait();

 private:
  template <typename Reply>
  std::optional<Reply> request(const nlohmann::json& message, const GiveUp& give_up);

  std::unique_ptr<ChildProcess> child_;
  WorkerHello hello_;
};

}  // namespace tb
