// The history in a PostgreSQL server, through libpq (Debian's libpq-dev: the client library the
// server's own project maintains; its C API is stable across server versions). Many CI runners
// record at once: each recording is one transaction, and the first use creates the tables
// under an advisory lock so two runners starting together do not race.
//
// Unlike the SQLite file, which reads the facts of a trend point out of the stored JSON (so
// files older than those facts need no migration), this store computes them once when a run is
// recorded (scenario_facts) and keeps them in columns: the server answers plain SELECTs.
#include <trainbench/results/history_store.hpp>

#include <trainbench/build_config.hpp>
#include <trainbench/results/machine.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/utc_time.hpp>

#if TRAINBENCH_HAVE_POSTGRESQL
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#endif

namespace tb {

#if TRAINBENCH_HAVE_POSTGRESQL

namespace {

// The tables' layout; a server holding a newer one is refused, never written.
constexpr int kPgSchemaVersion = 1;

constexpr const char* kPgSchema = R"sql(
CREATE TABLE IF NOT EXISTS trainbench_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS trainbench_runs (
  seq BIGSERIAL,
  run_id TEXT PRIMARY KEY,
  started_at TEXT NOT NULL,
  git_revision TEXT NOT NULL,
  matrix TEXT NOT NULL,
  commit_under_test TEXT NOT NULL,
  results_path TEXT NOT NULL,
  results_json TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trainbench_scenarios (
  seq BIGSERIAL,
  run_id TEXT NOT NULL REFERENCES trainbench_runs(run_id) ON DELETE CASCADE,
  scenario_id TEXT NOT NULL,
  key_json TEXT NOT NULL,
  status TEXT NOT NULL,
  median_s DOUBLE PRECISION,
  ci_low DOUBLE PRECISION,
  ci_high DOUBLE PRECISION,
  samples_per_s DOUBLE PRECISION,
  peak_bytes BIGINT,
  contended BOOLEAN NOT NULL,
  paired_ratio DOUBLE PRECISION NOT NULL,
  paired_low DOUBLE PRECISION NOT NULL,
  paired_high DOUBLE PRECISION NOT NULL,
  gate_step_time_pct DOUBLE PRECISION NOT NULL,
  gate_peak_memory_pct DOUBLE PRECISION NOT NULL,
  machine TEXT NOT NULL,
  PRIMARY KEY (run_id, scenario_id)
);
CREATE INDEX IF NOT EXISTS trainbench_scenarios_by_id ON trainbench_scenarios(scenario_id);
)sql";

using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

class PgHistoryStore final : public HistoryStore {
 public:
  PgHistoryStore(const std::string& url, const std::string& shown) : shown_(shown), conn_(PQconnectdb(url.c_str())) {
    if (conn_ == nullptr) throw OutputError(shown_, "cannot connect to the PostgreSQL history: out of memory");
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string msg = error_text();
      PQfinish(conn_);
      conn_ = nullptr;
      throw OutputError(shown_, "cannot connect to the PostgreSQL history: " + msg);
    }
    try {
      create_schema();
    } catch (...) {
      PQfinish(conn_);
      conn_ = nullptr;
      throw;
    }
  }
  ~PgHistoryStore() override { PQfinish(conn_); }
  PgHistoryStore(const PgHistoryStore&) = delete;
  PgHistoryStore& operator=(const PgHistoryStore&) = delete;

  void record(const RunResult& run, const std::string& results_path, const std::string& started_at,
              const std::string& results_json) override {
    exec("BEGIN");
    try {
      query("DELETE FROM trainbench_runs WHERE run_id = $1", {run.run_id});
      query(
          "INSERT INTO trainbench_runs (run_id, started_at, git_revision, matrix, commit_under_test, results_path, "
          "results_json, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
          {run.run_id, started_at, environment_text(run.environment, "git_revision"), run.matrix_name,
           commit_under_test(run), results_path, results_json, utc_now()});
      const std::string machine = machine_label(run.environment);
      for (const auto& s : run.scenarios) {
        const ScenarioFacts f = scenario_facts(run, s);
        query(
            "INSERT INTO trainbench_scenarios (run_id, scenario_id, key_json, status, median_s, ci_low, ci_high, "
            "samples_per_s, peak_bytes, contended, paired_ratio, paired_low, paired_high, gate_step_time_pct, "
            "gate_peak_memory_pct, machine) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
            "$15, $16) ON CONFLICT (run_id, scenario_id) DO UPDATE SET status = EXCLUDED.status",
            {run.run_id, s.id, scenario_key(s.params).dump(), to_string(s.status), number(s.step_time_s.median),
             number(s.step_time_s.ci_low), number(s.step_time_s.ci_high), number(s.samples_per_s),
             std::to_string(peak_memory_bytes(s)), f.contended ? "true" : "false", number(f.paired_ratio),
             number(f.paired_low), number(f.paired_high), number(f.gate_step_time_pct), number(f.gate_peak_memory_pct),
             machine});
      }
      exec("COMMIT");
    } catch (...) {
      PQclear(PQexec(conn_, "ROLLBACK"));
      throw;
    }
  }

  std::vector<RunSummary> runs(int limit) const override {
    const auto r = query(
        "SELECT r.run_id, r.started_at, r.git_revision, r.matrix, r.results_path, "
        "(SELECT COUNT(*) FROM trainbench_scenarios s WHERE s.run_id = r.run_id), "
        "(SELECT COUNT(*) FROM trainbench_scenarios s WHERE s.run_id = r.run_id AND s.status = 'ok'), "
        "r.commit_under_test FROM trainbench_runs r ORDER BY r.started_at DESC, r.seq DESC " +
        limit_clause(limit));
    std::vector<RunSummary> out;
    for (int i = 0; i < PQntuples(r.get()); ++i)
      out.push_back({text(r, i, 0), text(r, i, 1), text(r, i, 2), text(r, i, 3), text(r, i, 4), integer(r, i, 5),
                     integer(r, i, 6), text(r, i, 7)});
    return out;
  }

  std::optional<std::string> results_json(const std::string& run_id) const override {
    const auto r = query("SELECT results_json FROM trainbench_runs WHERE run_id = $1", {run_id});
    if (PQntuples(r.get()) == 0) return std::nullopt;
    return text(r, 0, 0);
  }

  std::optional<std::string> newest_run_of_revision(const std::string& prefix) const override {
    const auto r = query(
        "SELECT run_id FROM trainbench_runs WHERE starts_with(git_revision, $1) ORDER BY started_at DESC, seq DESC "
        "LIMIT 1",
        {prefix});
    if (PQntuples(r.get()) == 0) return std::nullopt;
    return text(r, 0, 0);
  }

  std::vector<std::string> scenario_ids(const std::string& matrix) const override {
    const auto r = query(
        "SELECT s.scenario_id FROM trainbench_scenarios s JOIN trainbench_runs r ON r.run_id = s.run_id "
        "WHERE $1 = '' OR r.matrix = $1 GROUP BY s.scenario_id ORDER BY MIN(r.started_at), MIN(r.seq), MIN(s.seq)",
        {matrix});
    std::vector<std::string> out;
    for (int i = 0; i < PQntuples(r.get()); ++i) out.push_back(text(r, i, 0));
    return out;
  }

  std::vector<TrendPoint> trend(const std::string& scenario_id, int limit) const override {
    const auto r = query(
        "SELECT r.run_id, r.started_at, r.git_revision, s.status, s.median_s, s.ci_low, s.ci_high, s.samples_per_s, "
        "s.peak_bytes, r.commit_under_test, s.contended, s.paired_ratio, s.paired_low, s.paired_high, s.machine, "
        "s.gate_step_time_pct, s.gate_peak_memory_pct FROM trainbench_scenarios s JOIN trainbench_runs r ON "
        "r.run_id = s.run_id WHERE s.scenario_id = $1 ORDER BY r.started_at DESC, r.seq DESC " +
            limit_clause(limit),
        {scenario_id});
    std::vector<TrendPoint> out;
    for (int i = PQntuples(r.get()) - 1; i >= 0; --i)  // oldest first
      out.push_back({text(r, i, 0), text(r, i, 1), text(r, i, 2), text(r, i, 3), real(r, i, 4), real(r, i, 5),
                     real(r, i, 6), real(r, i, 7), std::atoll(PQgetvalue(r.get(), i, 8)), text(r, i, 9),
                     text(r, i, 10) == "t", real(r, i, 11), real(r, i, 12), real(r, i, 13), text(r, i, 14),
                     real(r, i, 15), real(r, i, 16)});
    return out;
  }

  void each_run(const std::function<void(const std::string&, const std::string&)>& visit) const override {
    const auto r = query("SELECT results_path, results_json FROM trainbench_runs ORDER BY started_at, seq");
    for (int i = 0; i < PQntuples(r.get()); ++i) visit(text(r, i, 0), text(r, i, 1));
  }

 private:
  static std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }
  static std::string limit_clause(int limit) { return limit > 0 ? "LIMIT " + std::to_string(limit) : ""; }
  static std::string text(const ResultPtr& r, int row, int col) { return PQgetvalue(r.get(), row, col); }
  static double real(const ResultPtr& r, int row, int col) {
    return PQgetisnull(r.get(), row, col) ? 0.0 : std::strtod(PQgetvalue(r.get(), row, col), nullptr);
  }
  static int integer(const ResultPtr& r, int row, int col) { return std::atoi(PQgetvalue(r.get(), row, col)); }

  std::string error_text() const {
    std::string msg = conn_ ? PQerrorMessage(conn_) : "no connection";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    return msg;
  }

  // A lost connection or a server that refuses to write is an output failure (exit 5, the
  // results stay on disk); a statement the server rejects otherwise means its tables are not
  // what this trainbench expects.
  [[noreturn]] void fail(const PGresult* r) const {
    const std::string msg = error_text();
    const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    const std::string code = state ? state : "";
    const bool output = PQstatus(conn_) != CONNECTION_OK || code.rfind("08", 0) == 0 || code.rfind("53", 0) == 0 ||
                        code == "25006" || code.rfind("57", 0) == 0 || code == "42501";
    if (output) throw OutputError(shown_, "PostgreSQL: " + msg);
    throw InputError(shown_, "", "PostgreSQL: " + msg);
  }

  ResultPtr query(const std::string& sql, const std::vector<std::string>& params = {}) const {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    ResultPtr r(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.empty() ? nullptr : values.data(), nullptr, nullptr, 0),
                &PQclear);
    const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(r.get());
    return r;
  }
  void exec(const char* sql) const {
    ResultPtr r(PQexec(conn_, sql), &PQclear);
    const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(r.get());
  }

  // Tables created once, under a transaction-scoped advisory lock, so runners that start at
  // the same moment wait for each other instead of racing CREATE TABLE.
  void create_schema() {
    exec("BEGIN");
    try {
      exec("SELECT pg_advisory_xact_lock(7351208114)");  // any fixed number: trainbench's lock
      exec(kPgSchema);
      const auto r = query("SELECT MAX(version) FROM trainbench_schema");
      if (PQgetisnull(r.get(), 0, 0)) {
        query("INSERT INTO trainbench_schema (version) VALUES ($1)", {std::to_string(kPgSchemaVersion)});
      } else {
        const int version = integer(r, 0, 0);
        TB_CHECK_INPUT(version <= kPgSchemaVersion, shown_, "trainbench_schema",
                       "the history's tables are of schema version ", version, ", newer than this trainbench's (",
                       kPgSchemaVersion, "): upgrade trainbench to record here");
      }
      exec("COMMIT");
    } catch (...) {
      PQclear(PQexec(conn_, "ROLLBACK"));
      throw;
    }
  }

  std::string shown_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<HistoryStore> open_postgresql_history(const std::string& url) {
  return std::make_unique<PgHistoryStore>(url, redacted_history_location(url));
}

#else

std::unique_ptr<HistoryStore> open_postgresql_history(const std::string& url) {
  throw InputError(redacted_history_location(url), "",
                   "this trainbench was built without PostgreSQL support (install libpq-dev and rebuild)");
}

#endif

}  // namespace tb
