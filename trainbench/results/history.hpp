// Results history: every recorded run with its full results JSON (so comparisons against an
// old run work after its results directory is gone) and one row per scenario for trends. Kept
// in an SQLite file (the default) or a PostgreSQL server (history_store.hpp).
//
// SQLite tables:
//   runs(run_id PK, started_at, git_revision, matrix, manifest_json, results_path, results_json,
//        recorded_at)
//   scenario_results(run_id, scenario_id, key_json, status, median_s, ci_low, ci_high,
//        samples_per_s, peak_bytes)
// Runs are ordered by started_at (ISO 8601 UTC, sorts as text), then by recording order.
#pragma once
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <trainbench/results/results.hpp>

namespace tb {

class HistoryStore;  // history_store.hpp

// git_revision is trainbench's own; commit is the code under test's
// (environment.code_under_test.commit, see code_revision.hpp; "" for runs recorded without one).
struct RunSummary {
  std::string run_id, started_at, git_revision, matrix, results_path;
  int scenarios = 0, ok = 0;
  std::string commit;
};

struct TrendPoint {
  std::string run_id, started_at, git_revision, status;
  double median_s = 0, ci_low = 0, ci_high = 0, samples_per_s = 0;
  std::int64_t peak_bytes = 0;
  std::string commit;      // of the code under test, "" when not recorded
  bool contended = false;  // the scenario's disturbance said so
  // Recorded by `ab --history` (NEW side): step time NEW/OLD measured side by side, with its
  // paired 95% interval (provenance.ab_session.paired); 0 for other runs.
  double paired_ratio = 0, paired_low = 0, paired_high = 0;
  std::string machine;  // machine_label (machine.hpp) of the run's environment
  // The matrix's gates for the scenario in this run (params.gates, gate_thresholds.hpp); 0: none.
  double gate_step_time_pct = 0, gate_peak_memory_pct = 0;
};

class History {
 public:
  // Where the file is when the user names none: history_location.hpp.

  // Opens (creating the file, its directory and the tables when missing). InputError naming
  // the file when it is not a trainbench history; OutputError when it cannot be written (full
  // disk, read-only). Concurrent processes may share one file: each waits up to 30 s for the
  // others' transactions. A "postgresql://user:password@host:port/db" location is a PostgreSQL
  // server instead (history_store.hpp): many runners write it at once, and one that cannot be
  // reached is an OutputError.
  explicit History(const std::string& location);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  // The file, or the server's URL without its password: for messages.
  const std::string& path() const { return path_; }

  // Stores the run in one transaction; recording the same run_id again replaces it (run ids are
  // unique per run, see run_id.hpp, so another run's rows are never replaced). Without
  // environment["started_at"] the recording time stands in.
  void record(const RunResult& run, const std::string& results_path);

  // Newest first; limit <= 0 means all.
  std::vector<RunSummary> runs(int limit = 0) const;

  // ref: an exact run id, "last" (the newest run), or a git revision prefix of at least 4 hex
  // digits (the newest run built from it). nullopt when nothing matches.
  std::optional<RunResult> find(const std::string& ref) const;

  // The newest run ordered before run_id (nullopt if run_id is unknown or the oldest).
  std::optional<RunResult> find_before(const std::string& run_id) const;

  // Every scenario id recorded (in runs of `matrix` when not empty), in the order they were
  // first recorded.
  std::vector<std::string> scenario_ids(const std::string& matrix = "") const;

  // One scenario across runs, oldest first; limit <= 0 means all (else the newest `limit`).
  std::vector<TrendPoint> trend(const std::string& scenario_id, int limit = 0) const;

  // Every run, oldest first, as JSON lines that another machine's history can import (CI runners
  // that each keep a history, an artifact carried between jobs): a header line
  // {"kind": "trainbench-history-export", "version": 1}, then one {"results_path", "results"}
  // per run.
  void export_runs(std::ostream& out) const;

  // Records every run of an export, replacing runs of the same id (importing twice changes
  // nothing). The whole file is read and checked first: InputError naming `source` and the
  // line when a line is not an export's, and nothing is recorded then. Returns the run count.
  std::size_t import_runs(std::istream& in, const std::string& source);

 private:
  std::optional<RunResult> load_run(const std::string& run_id) const;

  std::string path_;
  std::unique_ptr<HistoryStore> store_;
};

}  // namespace tb
