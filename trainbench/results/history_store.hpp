// Where a History keeps its runs: the embedded SQLite file (the default, one per user) or a
// PostgreSQL server that many CI runners write at once (`--history postgresql://...`). History
// (history.hpp) is the one interface commands use; a store is the few primitives it is built on,
// each one transaction.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <trainbench/results/history.hpp>

namespace tb {

class HistoryStore {
 public:
  virtual ~HistoryStore() = default;

  // Replaces any run of the same id, in one transaction. `started_at` is the run's (or the
  // recording time); `results_json` the run as results.json holds it.
  virtual void record(const RunResult& run, const std::string& results_path, const std::string& started_at,
                      const std::string& results_json) = 0;
  // Newest first (start time, then recording order); limit <= 0: all.
  virtual std::vector<RunSummary> runs(int limit) const = 0;
  virtual std::optional<std::string> results_json(const std::string& run_id) const = 0;
  // The newest run whose trainbench revision starts with `prefix`.
  virtual std::optional<std::string> newest_run_of_revision(const std::string& prefix) const = 0;
  virtual std::vector<std::string> scenario_ids(const std::string& matrix) const = 0;
  virtual std::vector<TrendPoint> trend(const std::string& scenario_id, int limit) const = 0;
  // Every run, oldest first.
  virtual void each_run(
      const std::function<void(const std::string& results_path, const std::string& results_json)>& visit) const = 0;
};

// history_sqlite.cpp: InputError when the file is not a trainbench history, OutputError when it
// cannot be written.
std::unique_ptr<HistoryStore> open_sqlite_history(const std::string& path);

// history_postgresql.cpp: OutputError naming the server (password left out) when it cannot be
// reached or written (the results stay on disk; exit 5), InputError when its tables are not a
// trainbench history's or of a newer schema, or when this build has no PostgreSQL client.
std::unique_ptr<HistoryStore> open_postgresql_history(const std::string& url);

// "postgresql://..." or "postgres://...": a server, not a file.
bool is_postgresql_url(const std::string& location);

// The location as messages show it: a URL's password replaced by "***".
std::string redacted_history_location(const std::string& location);

// What a trend point says beyond the scenario's figures, read from the run as recorded:
// contention, the paired ratio of an ab session, the matrix's gates. A store that keeps columns
// computes them here once, at recording.
struct ScenarioFacts {
  bool contended = false;
  double paired_ratio = 0, paired_low = 0, paired_high = 0;
  double gate_step_time_pct = 0, gate_peak_memory_pct = 0;
};
ScenarioFacts scenario_facts(const RunResult& run, const ScenarioResult& scenario);

// The commit under test the run recorded (environment.code_under_test.commit), "" when none.
std::string commit_under_test(const RunResult& run);

// environment[key] when it is a string, else "".
std::string environment_text(const nlohmann::json& environment, const char* key);

}  // namespace tb
