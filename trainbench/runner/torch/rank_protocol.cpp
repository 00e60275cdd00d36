#include <trainbench/runner/torch/rank_protocol.hpp>

#include <chrono>

#include <trainbench/runner/interrupt.hpp>
#include <trainbench/training/torch/c10d_adapter.hpp>

namespace tb {

namespace {

using nlohmann::json;

// Keys in the store. A command numbered n is "cmd/n"; a follower's answer to it "ack/n/RANK".
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
  json scenarios = json::array();
  for (std::size_t i = 0; i < table_->size(); ++i) scenarios.push_back(table_->params(i));
  world_->put(kScenariosKey, json({{"scenarios", scenarios}, {"out_dir", out_dir}}).dump());
}

LeaderScenarioTable::~LeaderScenarioTable() {
  try {
    send({{"op", "exit"}});
    release_followers(*world_);
  } catch (const std::exception&) {
    // A store that is gone has no follower left to tell.
  }
}

bool LeaderScenarioTable::on_several_ranks(std::size_t i) const {
  const int n = table_->params(i).world_size;
  return n > 1 && n <= world_->size();
}

void LeaderScenarioTable::send(const json& command) { world_->put(command_key(++sent_), command.dump()); }

void LeaderScenarioTable::segment(std::size_t i, int round) {
  if (!on_several_ranks(i)) {
    table_->segment(i, round);
    return;
  }
  send({{"op", "segment"}, {"i", i}, {"round", round}});
  const int command = sent_;
  table_->segment(i, round);
  // One rank's failure fails the scenario on all of them. When rank 0's own segment failed (a
  // peer died, a collective timed out) it knows enough: the others learn it from "drop".
  if (!table_->active(i)) {
    const auto result = table_->snapshot_of(i);
    send({{"op", "drop"}, {"i", i}, {"why", "rank 0: " + (result ? result->message : std::string("failed"))}});
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
    const json ack = json::parse(*answer, nullptr, /*allow_exceptions=*/false);
    if (!ack.is_object() || ack.value("failed", false))
      failure = "rank " + std::to_string(rank) + ": " +
                (ack.is_object() ? ack.value("message", std::string("failed")) : std::string("unreadable answer"));
  }
  if (failure.empty()) return;
  table_->abort(i, failure);
  send({{"op", "drop"}, {"i", i}, {"why", failure}});
}

void LeaderScenarioTable::finish(std::size_t i) {
  // Finishing gathers the followers' timings (scenario_session.cpp); only a scenario still alive
  // on the followers has them.
  if (on_several_ranks(i) && table_->active(i)) send({{"op", "finish"}, {"i", i}});
  table_->finish(i);
}

int follow_leader(const RunOptions& rank_options) {
  dist::World& world = *rank_options.world;
  const auto published = await(world, kScenariosKey);
  if (!published) return 0;  // rank 0 stopped before measuring anything
  const json run = json::parse(*published);
  RunOptions options = rank_options;
  options.out_dir = run.value("out_dir", std::string());
  ScenarioTable table(run.at("scenarios").get<std::vector<ScenarioParams>>(), options,
                      std::chrono::steady_clock::now(), 0, nullptr);
  for (int n = 1;; ++n) {
    const auto text = await(world, command_key(n));
    if (!text) return 0;
    const json command = json::parse(*text);
    const std::string op = command.value("op", "");
    if (op == "exit") return 0;
    const std::size_t i = command.value("i", std::size_t{0});
    if (i >= table.size()) continue;
    const bool mine = world.rank() < table.params(i).world_size;
    if (op == "segment" && mine) {
      table.segment(i, command.value("round", 0));
      json ack = {{"failed", !table.active(i)}};
      if (!table.active(i))
        if (const auto result = table.snapshot_of(i)) ack["message"] = result->message;
      world.put(ack_key(n, world.rank()), ack.dump());
    } else if (op == "finish" && mine) {
      table.finish(i);
      table.take_result(i);  // rank 0 keeps the results
    } else if (op == "drop") {
      table.abort(i, command.value("why", std::string("dropped by rank 0")));
    }
  }
}

}  // namespace tb
