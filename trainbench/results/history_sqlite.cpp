#include <trainbench/results/history_store.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include <trainbench/results/machine.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/utc_time.hpp>

namespace tb {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  started_at TEXT NOT NULL,
  git_revision TEXT NOT NULL,
  matrix TEXT NOT NULL,
  manifest_json TEXT NOT NULL,
  results_path TEXT NOT NULL,
  results_json TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS scenario_results (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  scenario_id TEXT NOT NULL,
  key_json TEXT NOT NULL,
  status TEXT NOT NULL,
  median_s REAL,
  ci_low REAL,
  ci_high REAL,
  samples_per_s REAL,
  peak_bytes INTEGER,
  PRIMARY KEY (run_id, scenario_id)
);
CREATE INDEX IF NOT EXISTS scenario_results_by_id ON scenario_results(scenario_id);
)sql";

// Read from the stored JSON rather than kept in columns of their own, so histories written
// before they existed need no migration (SQLite's JSON functions, built in since 3.38).
const std::string kCommitUnderTest = "COALESCE(json_extract(r.manifest_json, '$.code_under_test.commit'), '')";
const std::string kScenarioContended =
    "COALESCE((SELECT json_extract(j.value, '$.metrics.disturbance.contended') FROM "
    "json_each(r.results_json, '$.scenarios') j WHERE json_extract(j.value, '$.id') = s.scenario_id), 0)";

// provenance.ab_session.paired's entry for the scenario: `field` is ratio, low or high.
std::string scenario_paired(const char* field) {
  return std::string("COALESCE((SELECT json_extract(p.value, '$.") + field +
         "') FROM json_each(r.results_json, '$.provenance.ab_session.paired') p WHERE json_extract(p.value, "
         "'$.scenario') = s.scenario_id), 0)";
}

// The scenario's params.gates.<field> (the matrix's threshold for it), 0 when none.
std::string scenario_gate(const char* field) {
  return std::string("COALESCE((SELECT json_extract(j.value, '$.params.gates.") + field +
         "') FROM json_each(r.results_json, '$.scenarios') j WHERE json_extract(j.value, '$.id') = s.scenario_id), 0)";
}

// Run order: start time, then recording order (rowid) for runs started in the same second.
constexpr const char* kRunOrder = "started_at DESC, rowid DESC";

// A full disk, a read-only file or folder: the database could not be written (OutputError),
// which is not bad input.
bool is_write_failure(sqlite3* db) {
  const int code = sqlite3_errcode(db) & 0xff;
  return code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_READONLY || code == SQLITE_CANTOPEN;
}

// A prepared statement that finalizes itself; errors name the database file.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    return *this;
  }
  // True while a row is available.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail("step");
    return false;
  }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  [[noreturn]] void fail(const char* what) const {
    if (is_write_failure(db_)) throw OutputError(path_, sqlite3_errmsg(db_));
    throw std::runtime_error(path_ + ": sqlite " + what + ": " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
};

using RowCallback = int (*)(void* arg, int columns, char** values, char** names);

void exec(sqlite3* db, const std::string& path, const char* sql, RowCallback row = nullptr, void* arg = nullptr) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql, row, arg, &msg) != SQLITE_OK) {
    std::string text = msg ? msg : "unknown error";
    sqlite3_free(msg);
    if (is_write_failure(db)) throw OutputError(path, text);
    throw InputError(path, "", "sqlite: " + text);
  }
}

// Whether the tables exist: then opening takes no write lock, so a read-only copy still works.
bool has_schema(sqlite3* db, const std::string& path) {
  int count = 0;
  exec(
      db, path,
      "SELECT COUNT(*) FROM sqlite_master WHERE name IN "
      "('runs', 'scenario_results', 'scenario_results_by_id')",
      [](void* n, int, char** values, char**) {
        *static_cast<int*>(n) = values[0] ? std::atoi(values[0]) : 0;
        return 0;
      },
      &count);
  return count == 3;
}

class SqliteHistoryStore final : public HistoryStore {
 public:
  explicit SqliteHistoryStore(const std::string& path);
  ~SqliteHistoryStore() override { sqlite3_close(db_); }
  SqliteHistoryStore(const SqliteHistoryStore&) = delete;
  SqliteHistoryStore& operator=(const SqliteHistoryStore&) = delete;

  void record(const RunResult& run, const std::string& results_path, const std::string& started_at,
              const std::string& results_json) override;
  std::vector<RunSummary> runs(int limit) const override;
  std::optional<std::string> results_json(const std::string& run_id) const override;
  std::optional<std::string> newest_run_of_revision(const std::string& prefix) const override;
  std::vector<std::string> scenario_ids(const std::string& matrix) const override;
  std::vector<TrendPoint> trend(const std::string& scenario_id, int limit) const override;
  void each_run(const std::function<void(const std::string&, const std::string&)>& visit) const override;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace

SqliteHistoryStore::SqliteHistoryStore(const std::string& path) : path_(path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    const bool write_failure = db_ && is_write_failure(db_);
    sqlite3_close(db_);
    db_ = nullptr;
    if (write_failure) throw OutputError(path, "cannot open the history database: " + msg);
    throw InputError(path, "", "cannot open history database: " + msg);
  }
  // Parallel runs and CI jobs record into one file: wait for each other's transactions.
  sqlite3_busy_timeout(db_, 30000);
  try {
    exec(db_, path_, "PRAGMA foreign_keys = ON;");
    if (!has_schema(db_, path_)) {
      // One write transaction from the start: two processes creating the tables at once would
      // otherwise both hold a read lock, want the write lock, and one fail with "locked".
      exec(db_, path_, "BEGIN IMMEDIATE;");
      try {
        exec(db_, path_, kSchema);
        exec(db_, path_, "COMMIT;");
      } catch (...) {
        sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
        throw;
      }
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

void SqliteHistoryStore::record(const RunResult& run, const std::string& results_path, const std::string& started_at,
                                const std::string& results_json) {
  exec(db_, path_, "BEGIN IMMEDIATE;");
  try {
    Statement(db_, path_, "DELETE FROM scenario_results WHERE run_id = ?1").bind(1, run.run_id).step();
    Statement(db_, path_, "DELETE FROM runs WHERE run_id = ?1").bind(1, run.run_id).step();
    Statement(db_, path_,
              "INSERT INTO runs (run_id, started_at, git_revision, matrix, manifest_json, "
              "results_path, results_json, recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
        .bind(1, run.run_id)
        .bind(2, started_at)
        .bind(3, environment_text(run.environment, "git_revision"))
        .bind(4, run.matrix_name)
        .bind(5, run.environment.dump())
        .bind(6, results_path)
        .bind(7, results_json)
        .bind(8, utc_now())
        .step();
    Statement insert(db_, path_,
                     "INSERT OR REPLACE INTO scenario_results (run_id, scenario_id, key_json, "
                     "status, median_s, ci_low, ci_high, samples_per_s, peak_bytes) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    for (const auto& s : run.scenarios) {
      const std::int64_t peak = peak_memory_bytes(s);
      insert.reset()
          .bind(1, run.run_id)
          .bind(2, s.id)
          .bind(3, scenario_key(s.params).dump())
          .bind(4, std::string(to_string(s.status)))
          .bind(5, s.step_time_s.median)
          .bind(6, s.step_time_s.ci_low)
          .bind(7, s.step_time_s.ci_high)
          .bind(8, s.samples_per_s)
          .bind(9, peak)
          .step();
    }
    exec(db_, path_, "COMMIT;");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<RunSummary> SqliteHistoryStore::runs(int limit) const {
  const std::string sql = std::string(
                              "SELECT r.run_id, r.started_at, r.git_revision, r.matrix, r.results_path, "
                              "(SELECT COUNT(*) FROM scenario_results s WHERE s.run_id = r.run_id), "
                              "(SELECT COUNT(*) FROM scenario_results s WHERE s.run_id = r.run_id AND "
                              "s.status = 'ok'), " +
                              kCommitUnderTest + " FROM runs r ORDER BY ") +
                          kRunOrder + " LIMIT ?1";
  Statement q(db_, path_, sql.c_str());
  q.bind(1, static_cast<std::int64_t>(limit > 0 ? limit : -1));
  std::vector<RunSummary> out;
  while (q.step())
    out.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.text(4), static_cast<int>(q.integer(5)),
                   static_cast<int>(q.integer(6)), q.text(7)});
  return out;
}

std::optional<std::string> SqliteHistoryStore::results_json(const std::string& run_id) const {
  Statement q(db_, path_, "SELECT results_json FROM runs WHERE run_id = ?1");
  q.bind(1, run_id);
  if (!q.step()) return std::nullopt;
  return q.text(0);
}

void SqliteHistoryStore::each_run(const std::function<void(const std::string&, const std::string&)>& visit) const {
  Statement q(db_, path_, "SELECT results_path, results_json FROM runs ORDER BY started_at, rowid");
  while (q.step()) visit(q.text(0), q.text(1));
}

std::optional<std::string> SqliteHistoryStore::newest_run_of_revision(const std::string& prefix) const {
  const std::string sql =
      std::string("SELECT run_id FROM runs WHERE git_revision LIKE ?1 ORDER BY ") + kRunOrder + " LIMIT 1";
  Statement q(db_, path_, sql.c_str());
  q.bind(1, prefix + "%");
  if (!q.step()) return std::nullopt;
  return q.text(0);
}

std::vector<std::string> SqliteHistoryStore::scenario_ids(const std::string& matrix) const {
  // Ordered by the first run that recorded each scenario, so a matrix's scenarios keep their order.
  Statement q(db_, path_,
              "SELECT s.scenario_id FROM scenario_results s JOIN runs r ON r.run_id = s.run_id "
              "WHERE ?1 = '' OR r.matrix = ?1 GROUP BY s.scenario_id "
              "ORDER BY MIN(r.started_at), MIN(r.rowid), MIN(s.rowid)");
  q.bind(1, matrix);
  std::vector<std::string> out;
  while (q.step()) out.push_back(q.text(0));
  return out;
}

std::vector<TrendPoint> SqliteHistoryStore::trend(const std::string& scenario_id, int limit) const {
  const std::string sql = std::string(
                              "SELECT r.run_id, r.started_at, r.git_revision, s.status, s.median_s, "
                              "s.ci_low, s.ci_high, s.samples_per_s, s.peak_bytes, " +
                              kCommitUnderTest + ", " + kScenarioContended + ", " + scenario_paired("ratio") + ", " +
                              scenario_paired("low") + ", " + scenario_paired("high") + ", r.manifest_json, " +
                              scenario_gate("step_time_pct") + ", " + scenario_gate("peak_memory_pct") +
                              " FROM scenario_results s "
                              "JOIN runs r ON r.run_id = s.run_id WHERE s.scenario_id = ?1 ORDER BY ") +
                          "r.started_at DESC, r.rowid DESC LIMIT ?2";
  Statement q(db_, path_, sql.c_str());
  q.bind(1, scenario_id).bind(2, static_cast<std::int64_t>(limit > 0 ? limit : -1));
  std::vector<TrendPoint> out;
  while (q.step())
    out.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.real(4), q.real(5), q.real(6), q.real(7), q.integer(8),
                   q.text(9), q.integer(10) != 0, q.real(11), q.real(12), q.real(13),
                   machine_label(nlohmann::json::parse(q.text(14), nullptr, false)), q.real(15), q.real(16)});
  std::reverse(out.begin(), out.end());
  return out;
}

std::unique_ptr<HistoryStore> open_sqlite_history(const std::string& path) {
  return std::make_unique<SqliteHistoryStore>(path);
}

}  // namespace tb
