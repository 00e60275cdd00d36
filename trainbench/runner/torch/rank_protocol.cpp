#include <trainbench/runner/torch/rank_protocol.hpp>

#include <chrono>

#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/worker_protocol.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>

namespace tb {

namespace {

using nlohmann::json;

// Keys in the store. Every message is one of the worker protocol's (worker_protocol.hpp): the
// RankPlan under "scenarios", a request numbered n under "cmd/n", a follower's SegmentReply to it
// under "ack/n/RANK".
std::string command_key(int n) { return "cmd/" + std::to_string(n); }
std::string ack_key(int n, int rank) { return "ack/" + std::to_string(n) + "/" + std::to_string(rank); }
constexpr const char* kScenariosKey = "scenarios";
constexpr const char* kOverKey = "over";

// A follower's answer to a segment rank 0 measured without trouble: the follower ran the same
// steps in lockstep, so it answers within moments unless it died or hangs (then the run's
// timeout). A Ctrl-C on rank 0 stops the wait.
std::optional<std::string> await_answer(dist::World& world, const std::string& key) {
  const auto deadline = std::chrono::steady_clock::now() + world.timeout();
  while (std::chrono::steady_clock::now() < deadline && !interrupted())
    if (auto value = world.poll(key, std::chrono::milliseconds(200))) return value;
  return std::nullopt;
}

// A follower waits for `key` as long as rank 0 runs; nullopt once rank 0 said the run is over.
std::optional<std::string> await(dist::World& world, const std::string& key) {
  for (;;) {
    if (auto value = world.poll(key, std::chrono::seconds(1))) return value;
    if (world.poll(kOverKey, std::chrono::milliseconds(0))) return std::nullopt;
  }
}

}  // namespace

void release_followers(dist::World& world) {
  if (world.rank() == 0) world.put(kOverKey, "1");
}

LeaderScenarioTable::LeaderScenarioTable(std::shared_ptr<dist::World> world, std::unique_ptr<ScenarioTable> table,
                                         const std::string& out_dir)
    : world_(std::move(world)), table_(std::move(table)) {
  RankPlan plan;
  for (std::size_t i = 0; i < table_->size(); ++i) plan.scenarios.push_back(table_->params(i));
  plan.out_dir = out_dir;
  world_->put(kScenariosKey, json(plan).dump());
}

LeaderScenarioTable::~LeaderScenarioTable() {
  try {
    send(FinishRequest{});
    release_followers(*world_);
  } catch (const std::exception&) {
    // A store that is gone has no follower left to tell.
  }
}

bool LeaderScenarioTable::on_several_ranks(std::size_t i) const {
  const int n = table_->params(i).world_size;
  return n > 1 && n <= world_->size();
}

void LeaderScenarioTable::send(const WorkerRequest& command) {
  world_->put(command_key(++sent_), request_json(command).dump());
}

void LeaderScenarioTable::segment(std::size_t i, int round) {
  if (!on_several_ranks(i)) {
    table_->segment(i, round);
    return;
  }
  send(SegmentRequest{i, round, false});
  const int command = sent_;
  table_->segment(i, round);
  // One rank's failure fails the scenario on all of them. When rank 0's own segment failed (a
  // peer died, a collective timed out) it knows enough: the others learn it from "drop".
  if (!table_->active(i)) {
    const auto result = table_->snapshot_of(i);
    send(DropRequest{i, "rank 0: " + (result ? result->message : std::string("failed"))});
    return;
  }
  std::string failure;
  for (int rank = 1; rank < table_->params(i).world_size && failure.empty(); ++rank) {
    const auto answer = await_answer(*world_, ack_key(command, rank));
    if (!answer) {
      if (interrupted()) return;  // the schedule stops; interrupt_unfinished() records it
      failure = "rank " + std::to_string(rank) + " did not answer within " +
                std::to_string(world_->timeout().count() / 1000) + " s (--dist-timeout): it died or hangs";
      break;
    }
    SegmentReply ack;
    try {
      ack = json::parse(*answer).get<SegmentReply>();
    } catch (const json::exception&) {
      failure = "rank " + std::to_string(rank) + ": unreadable answer";
      break;
    }
    if (!ack.active) failure = "rank " + std::to_string(rank) + ": " + ack.message.value_or("failed");
  }
  if (failure.empty()) return;
  table_->abort(i, failure);
  send(DropRequest{i, failure});
}

void LeaderScenarioTable::finish(std::size_t i) {
  // Finishing gathers the followers' timings (scenario_session.cpp); only a scenario still alive
  // on the followers has them.
  if (on_several_ranks(i) && table_->active(i)) send(FinishOneRequest{i});
  table_->finish(i);
}

int follow_leader(const RunOptions& rank_options) {
  dist::World& world = *rank_options.world;
  const auto published = await(world, kScenariosKey);
  if (!published) return 0;  // rank 0 stopped before measuring anything
  const auto plan = json::parse(*published).get<RankPlan>();
  RunOptions options = rank_options;
  options.out_dir = plan.out_dir;
  ScenarioTable table(plan.scenarios, options, std::chrono::steady_clock::now(), 0, nullptr);
  // Whether this rank takes part in scenario i (a scenario on fewer ranks leaves the rest idle).
  auto mine = [&](std::size_t i) { return i < table.size() && world.rank() < table.params(i).world_size; };
  for (int n = 1;; ++n) {
    const auto text = await(world, command_key(n));
    if (!text) return 0;
    const WorkerRequest command = parse_request(json::parse(*text));
    if (std::holds_alternative<FinishRequest>(command)) return 0;
    if (const auto* segment = std::get_if<SegmentRequest>(&command); segment && mine(segment->scenario)) {
      const std::size_t i = segment->scenario;
      table.segment(i, segment->round);
      SegmentReply ack{table.active(i), table.converged(i), std::nullopt, std::nullopt};
      if (!ack.active)
        if (const auto result = table.snapshot_of(i)) ack.message = result->message;
      world.put(ack_key(n, world.rank()), json(ack).dump());
    } else if (const auto* finish = std::get_if<FinishOneRequest>(&command); finish && mine(finish->scenario)) {
      table.finish(finish->scenario);
      table.take_result(finish->scenario);  // rank 0 keeps the results
    } else if (const auto* drop = std::get_if<DropRequest>(&command); drop && drop->scenario < table.size()) {
      table.abort(drop->scenario, drop->why);
    }
  }
}

}  // namespace tb
