#include <trainbench/runner/torch/scenario_table.hpp>

#include <utility>

#include <trainbench/capacity/memory_probe.hpp>
#include <trainbench/runner/interrupt.hpp>
#include <trainbench/runner/torch/scenario_failure.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/training/torch/registry.hpp>

namespace tb {

std::int64_t current_rss_bytes() {
  const capacity::PeakRssProbe probe(capacity::PeakRssProbe::Mode::sampling);
  return probe.current_rss_bytes();
}

ScenarioTable::ScenarioTable(std::vector<ScenarioParams> scenarios, const RunOptions& options,
                             Clock::time_point run_start, std::int64_t base_rss_bytes, RunListener* listener)
    : slots_(scenarios.size()),
      options_(options),
      run_start_(run_start),
      base_rss_(base_rss_bytes),
      listener_(listener) {
  for (std::size_t i = 0; i < scenarios.size(); ++i) slots_[i].params = std::move(scenarios[i]);
}

ScenarioTable::~ScenarioTable() = default;

bool ScenarioTable::converged(std::size_t i) const { return slots_[i].session && slots_[i].session->converged(); }

void ScenarioTable::report(std::size_t i) {
  if (listener_) listener_->scenario_finished(++finished_, slots_.size(), *slots_[i].result);
}

void ScenarioTable::fail(std::size_t i, std::exception_ptr error) {
  ScenarioResult r;
  record_failure(r, slots_[i].params, error);
  slots_[i].session.reset();
  slots_[i].result = std::move(r);
  report(i);
}

void ScenarioTable::segment(std::size_t i, int round) {
  Slot& slot = slots_[i];
  try {
    if (!slot.session)
      slot.session =
          std::make_unique<ScenarioSession>(slot.params, options_, run_start_, base_rss_, "s" + std::to_string(i));
    slot.session->run_segment(round);
  } catch (const Interrupted&) {
    // Not the scenario's failure: the run is stopping, and interrupt_unfinished() records it.
  } catch (...) { fail(i, std::current_exception()); }
}

void ScenarioTable::finish(std::size_t i) {
  Slot& slot = slots_[i];
  // Never measured in this process (an A/B worker that ran other scenarios' rounds only): no
  // result, rather than one without steps.
  if (slot.result || !slot.session) return;
  try {
    slot.result = slot.session->finish();
    slot.session.reset();
    report(i);
  } catch (...) { fail(i, std::current_exception()); }
}

void ScenarioTable::abort(std::size_t i, const std::string& why) {
  if (slots_[i].result) return;
  fail(i, std::make_exception_ptr(std::runtime_error(why)));
}

void ScenarioTable::finish_all() {
  for (std::size_t i = 0; i < slots_.size(); ++i) finish(i);
}

void ScenarioTable::interrupt_unfinished() {
  for (auto& slot : slots_) {
    if (slot.result) continue;
    std::optional<ScenarioResult> measured;
    if (slot.session) {
      try {  // what it measured so far; a snapshot that fails loses only that
        measured = slot.session->snapshot();
      } catch (const std::exception&) {}
    }
    slot.session.reset();
    slot.result = interrupted_result(std::move(measured), slot.params);
  }
}

std::optional<ScenarioResult> ScenarioTable::snapshot_of(std::size_t i) const {
  const Slot& slot = slots_[i];
  if (slot.result) return slot.result;
  if (slot.session) return slot.session->snapshot();
  return std::nullopt;
}

std::optional<ScenarioResult> ScenarioTable::take_result(std::size_t i) {
  return std::exchange(slots_[i].result, std::nullopt);
}

}  // namespace tb
