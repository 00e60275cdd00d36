#include <trainbench/runner/paired_workers.hpp>

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <utility>

namespace tb {

PairedWorkerSet::PairedWorkerSet(PairedWorkersOptions options) : options_(std::move(options)) { start_pair(); }

PairedWorkerSet::~PairedWorkerSet() = default;

StoppingRule PairedWorkerSet::stopping_rule() const {
  if (gate_) return gate_->stopping_rule(StoppingRule{});
  StoppingRule rule;
  rule.rounds = plan_.rounds;
  rule.max_rounds = options_.rounds_per_process == 0 ? plan_.max_rounds : plan_.rounds;
  rule.interleave = true;  // side by side is interleaved by definition
  return rule;
}

std::string PairedWorkerSet::describe(int side) const {
  return std::string(kNames[side]) + " worker (" + options_.programs[side] + ")";
}

void PairedWorkerSet::start_pair() {
  const std::size_t block = parts_[0].size();
  for (int s = 0; s < 2; ++s) {
    const std::string part =
        (std::filesystem::path(options_.out_dir) / kFolders[s] / ("p" + std::to_string(block))).string();
    const std::string& matrix = s == 0 && !options_.old_matrix.empty() ? options_.old_matrix : options_.matrix;
    std::vector<std::string> argv = {options_.programs[s], "worker",         matrix,      "--out",    part,
                                     "--ab-session",       options_.session, "--ab-side", kFolders[s]};
    for (const auto* list : {&options_.sets, &options_.side_sets[s]})
      for (const auto& set : *list) argv.insert(argv.end(), {"--set", set});
    if (!options_.memory_budget.empty()) argv.insert(argv.end(), {"--memory-budget", options_.memory_budget});
    try {
      sides_[s] = {std::make_unique<WorkerClient>(argv), {}};
    } catch (const WorkerStartError& e) { throw PairedSessionError(e.what(), false); }
    parts_[s].push_back(part);
  }
  for (int s = 0; s < 2; ++s) {
    try {
      sides_[s].worker->await_hello();
    } catch (const WorkerStartError& e) {
      if (e.kind() != WorkerStartError::Kind::silent)
        throw PairedSessionError(std::string(kNames[s]) + " (" + options_.programs[s] + "): " + e.what(), false);
      throw PairedSessionError(describe(s) + " " + e.what() + " (is it a trainbench build with `worker`?)", s == 1);
    }
  }
  const WorkerHello& old_hello = sides_[0].worker->hello();
  const WorkerHello& new_hello = sides_[1].worker->hello();
  // Pairing needs the same scenarios (ids and axis values) on both sides. Settings that leave
  // them alone may differ (--new-set model_options..., python.file: an A/B of that setting), but
  // each side must expand the matrix the same way in every worker it starts.
  if (nlohmann::json(old_hello.scenarios) != nlohmann::json(new_hello.scenarios))
    throw PairedSessionError("OLD and NEW expand " + options_.matrix +
                                 " into different scenarios: an A/B comparison needs the same scenarios on both sides",
                             false);
  if (block > 0 && (old_hello.digest != digests_[0] || new_hello.digest != digests_[1]))
    throw PairedSessionError("a worker started for block " + std::to_string(block) + " expands " + options_.matrix +
                                 " differently from the first (matrix digest " + old_hello.digest + " / " +
                                 new_hello.digest + " vs " + digests_[0] + " / " + digests_[1] +
                                 "): was the matrix edited during the session?",
                             false);
  digests_ = {old_hello.digest, new_hello.digest};
  if (block == 0) {
    plan_ = old_hello;
    active_.assign(plan_.scenarios.size(), true);
    converged_.assign(plan_.scenarios.size(), false);
  }
}

void PairedWorkerSet::end_pair() {
  for (int s = 0; s < 2; ++s) {
    Side& side = sides_[s];
    if (!side.worker || !side.crash.empty()) continue;
    if (!side.worker->finish())
      side.crash = describe(s) + " ended with " + side.worker->wait().describe() + " during its finish";
    else side.worker->wait();
  }
  for (int s = 0; s < 2; ++s)
    if (!sides_[s].crash.empty()) throw_crash(s);
  for (auto& side : sides_) side.worker.reset();
}

void PairedWorkerSet::crashed(int side, const std::string& during) {
  sides_[side].crash = describe(side) + " ended with " + sides_[side].worker->wait().describe() + " during " + during;
  end_pair();  // the other side writes what it measured
  throw_crash(side);
}

void PairedWorkerSet::throw_crash(int side) const {
  throw PairedSessionError(
      sides_[side].crash + "; what it measured so far is in " + parts_[side].back() + "/results.json", side == 1);
}

void PairedWorkerSet::round_starting(int round) {
  const int every = options_.rounds_per_process;
  if (round == 0 || every == 0 || round % every != 0) return;
  end_pair();
  start_pair();
}

void PairedWorkerSet::segment(std::size_t i, int round) {
  const int first = pair_order_coin(plan_.seed, i, round) ? 1 : 0;
  bool still = true, both_converged = true;
  std::array<std::optional<Segment>, 2> measured;
  std::optional<ContentionThresholds> thresholds;
  for (const int s : {first, 1 - first}) {
    auto reply = sides_[s].worker->segment({i, round, false});
    if (!reply) crashed(s, "round " + std::to_string(round + 1) + ", scenario " + plan_.scenarios[i].id);
    still = still && reply->active;
    both_converged = both_converged && reply->converged;
    measured[s] = std::move(reply->segment);
    if (reply->contention && (s == 1 || !thresholds)) thresholds = reply->contention;  // NEW's first
  }
  active_[i] = still;  // a scenario that failed on either side is measured no further
  converged_[i] = both_converged;
  if (gate_ && segments_missing_) {
    converged_[i] = true;  // the fixed rounds only (below)
    return;
  }
  if (SequentialGate* gate = gate_) {
    if (still && !(measured[0] && measured[1])) {
      // An older worker: no round can be judged by the gate. Every scenario is measured for the
      // schedule's first rounds only (the matrix's rounds), as without a gate.
      segments_missing_ = true;
      converged_.assign(converged_.size(), true);
      return;
    }
    if (thresholds) gate->set_contention(i, *thresholds);
    if (still) gate->add_round(i, round, *measured[0], *measured[1]);
    else gate->stop(i);
    converged_[i] = gate->done(i);
  }
}

void PairedWorkerSet::finish_all() {
  for (std::size_t i = 0; i < size(); ++i) active_[i] = false;
  if (sides_[0].worker || sides_[1].worker) end_pair();
}

void PairedWorkerSet::interrupt_unfinished() {
  for (auto& side : sides_) side.worker.reset();  // kills them; what they saved stays
}

void PairedWorkerSet::save() {
  for (auto& side : sides_)
    if (side.worker) side.worker->save();  // a worker gone shows at its next segment
}

}  // namespace tb
