// The history in a real PostgreSQL server that the suite starts on localhost (Debian's
// postgresql package: initdb and pg_ctl as the postgres user when run as root, trust
// authentication, a port of its own, fsync off; stopped at the end): the same answers as the
// SQLite file for the same runs, concurrent writers lose nothing, an unreachable server is an
// output failure that never shows the password, a newer schema is refused. Skipped, with the
// reason, where no server can start.
#include <trainbench/results/history.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/cli/commands.hpp>
#include <trainbench/results/history_store.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/synthetic_runs.hpp"

namespace {

using namespace tb;
using tb::testing::jittered;
using tb::testing::make_run;
using tb::testing::make_scenario;

struct Shell {
  int exit_code = -1;
  std::string output;
};

Shell shell(const std::string& command) {
  Shell r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[512];
  while (fgets(buf, sizeof buf, pipe)) r.output += buf;
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// One server for the suite; each test works in a database of its own.
class PostgresServer {
 public:
  static PostgresServer& get() {
    static PostgresServer server;
    return server;
  }
  bool running() const { return running_; }
  const std::string& why_not() const { return why_not_; }
  // A fresh database named after the test; its URL.
  std::string database(const std::string& name) {
    const std::string db = "tb_" + name;
    const auto r = shell(as_owner(bin_ + "/psql -h 127.0.0.1 -p " + std::to_string(port_) +
                                  " -U postgres -d postgres -q -c 'DROP DATABASE IF EXISTS " + db +
                                  "' -c 'CREATE DATABASE " + db + "'"));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return url(db);
  }
  std::string url(const std::string& db) const {
    return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + db;
  }
  Shell psql(const std::string& db, const std::string& sql) const {
    return shell(as_owner(bin_ + "/psql -h 127.0.0.1 -p " + std::to_string(port_) + " -U postgres -d " + db +
                          " -q -t -A -c \"" + sql + "\""));
  }
  ~PostgresServer() {
    if (running_) shell(as_owner(bin_ + "/pg_ctl -D " + (dir_ / "data").string() + " -m immediate stop"));
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

 private:
  PostgresServer() {
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec_))
      if (std::filesystem::exists(entry.path() / "bin" / "initdb")) bin_ = (entry.path() / "bin").string();
    if (bin_.empty()) {
      why_not_ = "no PostgreSQL server installed (/usr/lib/postgresql/*/bin/initdb; Debian: postgresql)";
      return;
    }
    // The server refuses to run as root: as root it runs as the postgres user.
    root_ = geteuid() == 0;
    if (root_ && shell("id -u postgres").exit_code != 0) {
      why_not_ = "running as root and there is no postgres user to run the server as";
      return;
    }
    dir_ = std::filesystem::temp_directory_path() / ("tb_pg_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_, ec_);
    std::filesystem::create_directories(dir_);
    if (root_) shell("chown postgres " + dir_.string());
    const auto init = shell(as_owner(bin_ + "/initdb -D " + (dir_ / "data").string() +
                                     " -A trust -U postgres --no-sync -E UTF8 --locale=C.UTF-8"));
    if (init.exit_code != 0) {
      why_not_ = "initdb failed: " + init.output.substr(0, 400);
      return;
    }
    for (int attempt = 0; attempt < 5 && !running_; ++attempt) {
      port_ = 20000 + static_cast<int>((getpid() * 7 + attempt * 1009) % 30000);
      const auto start =
          shell(as_owner(bin_ + "/pg_ctl -D " + (dir_ / "data").string() + " -l " + (dir_ / "server.log").string() +
                         " -w -t 30 -o \"-p " + std::to_string(port_) + " -k " + dir_.string() +
                         " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50\" start"));
      running_ = start.exit_code == 0;
      if (!running_) why_not_ = "pg_ctl start failed: " + start.output.substr(0, 400);
    }
  }
  std::string as_owner(const std::string& command) const {
    return root_ ? "cd / && runuser -u postgres -- " + command : command;
  }

  std::error_code ec_;
  std::string bin_;
  std::filesystem::path dir_;
  bool root_ = false;
  bool running_ = false;
  int port_ = 0;
  std::string why_not_;
};

class PostgresHistory : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& server = PostgresServer::get();
    if (!server.running()) GTEST_SKIP() << "PostgreSQL server could not start: " << server.why_not();
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string lower;
    for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    db_name_ = "tb_" + lower;
    url_ = server.database(lower);
    dir_ = std::filesystem::temp_directory_path() / ("tb_test_pg_" + name);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string url_, db_name_;
  std::filesystem::path dir_;
};

// 24 runs with what a trend point carries: commits, a contended run, paired ratios of an ab
// session, the matrix's gates, a planted +10% from run 16.
std::vector<RunResult> sample_runs() {
  std::vector<RunResult> runs;
  for (int i = 0; i < 24; ++i) {
    char id[8], day[32], commit[8];
    std::snprintf(id, sizeof id, "r%02d", i);
    std::snprintf(day, sizeof day, "2026-03-%02dT00:00:00Z", i + 1);
    std::snprintf(commit, sizeof commit, "c%02d", i);
    const double slow = i >= 16 ? 1.10 : 1.0;
    auto mlp = make_scenario("mlp", Precision::fp32, 32, jittered(0.010 * slow * (1 + 0.003 * (i % 4)), 0.01, 20, i));
    auto cnn = make_scenario("cnn", Precision::fp32, 32, jittered(0.030, 0.01, 20, 100 + i));
    if (i == 9) cnn = tb::testing::contended(cnn);
    mlp.memory.peak_rss_bytes = 1000000 + i;
    mlp.params.gates.step_time_pct = 4;
    auto run = make_run(id, {mlp, cnn}, "Test CPU 9000", day, i < 12 ? "aaaa1111" : "bbbb2222");
    run.environment["code_under_test"] = {{"commit", commit}, {"source", "command line"}};
    run.provenance.ab_session = AbSessionProvenance{
        .id = std::string("ab-") + id,
        .side = "new",
        .reference = "--old /opt/pinned",
        .paired = {
            PairedRatio{.scenario = mlp.id, .ratio = slow, .low = slow * 0.98, .high = slow * 1.02, .valid = true}}};
    runs.push_back(run);
  }
  return runs;
}

TEST_F(PostgresHistory, SameAnswersAsTheSqliteFile) {
  const std::string file = (dir_ / "history.sqlite").string();
  {
    History pg(url_), sqlite(file);
    for (const auto& run : sample_runs()) {
      pg.record(run, "results/" + run.run_id);
      sqlite.record(run, "results/" + run.run_id);
    }
    // Recording a run again replaces it, in both.
    pg.record(sample_runs()[3], "results/again");
    sqlite.record(sample_runs()[3], "results/again");
  }
  History pg(url_), sqlite(file);
  EXPECT_EQ(pg.path(), url_);
  const auto pr = pg.runs(), sr = sqlite.runs();
  ASSERT_EQ(pr.size(), 24u);
  ASSERT_EQ(pr.size(), sr.size());
  for (std::size_t i = 0; i < pr.size(); ++i) {
    EXPECT_EQ(pr[i].run_id, sr[i].run_id);
    EXPECT_EQ(pr[i].started_at, sr[i].started_at);
    EXPECT_EQ(pr[i].git_revision, sr[i].git_revision);
    EXPECT_EQ(pr[i].results_path, sr[i].results_path);
    EXPECT_EQ(pr[i].scenarios, sr[i].scenarios);
    EXPECT_EQ(pr[i].ok, sr[i].ok);
    EXPECT_EQ(pr[i].commit, sr[i].commit);
  }
  EXPECT_EQ(pg.scenario_ids(), sqlite.scenario_ids());
  EXPECT_EQ(pg.scenario_ids("nope"), sqlite.scenario_ids("nope"));
  for (const auto& id : sqlite.scenario_ids()) {
    const auto pt = pg.trend(id), st = sqlite.trend(id);
    ASSERT_EQ(pt.size(), st.size()) << id;
    for (std::size_t i = 0; i < pt.size(); ++i) {
      EXPECT_EQ(pt[i].run_id, st[i].run_id);
      EXPECT_EQ(pt[i].status, st[i].status);
      EXPECT_DOUBLE_EQ(pt[i].median_s, st[i].median_s);
      EXPECT_DOUBLE_EQ(pt[i].ci_high, st[i].ci_high);
      EXPECT_EQ(pt[i].peak_bytes, st[i].peak_bytes);
      EXPECT_EQ(pt[i].commit, st[i].commit);
      EXPECT_EQ(pt[i].contended, st[i].contended) << id << " " << pt[i].run_id;
      EXPECT_DOUBLE_EQ(pt[i].paired_ratio, st[i].paired_ratio);
      EXPECT_DOUBLE_EQ(pt[i].paired_low, st[i].paired_low);
      EXPECT_EQ(pt[i].machine, st[i].machine);
      EXPECT_DOUBLE_EQ(pt[i].gate_step_time_pct, st[i].gate_step_time_pct);
    }
    EXPECT_EQ(pg.trend(id, 5).size(), 5u);
    EXPECT_EQ(pg.trend(id, 5).front().run_id, st[st.size() - 5].run_id);
  }
  EXPECT_EQ(pg.find("last")->run_id, sqlite.find("last")->run_id);
  EXPECT_EQ(pg.find("aaaa11")->run_id, "r11") << "the newest run of a revision prefix";
  EXPECT_EQ(pg.find_before("r05")->run_id, "r04");
  EXPECT_FALSE(pg.find("r99").has_value());
  std::ostringstream pe, se;
  pg.export_runs(pe);
  sqlite.export_runs(se);
  EXPECT_EQ(pe.str(), se.str());

  // The commands read it as they read the file: the same change points, the same gate.
  std::ostringstream po, so, err;
  EXPECT_EQ(cli::cmd_history({"--history", url_, "--changes", "--metric", "paired_ratio"}, po, err), 0) << err.str();
  EXPECT_EQ(cli::cmd_history({"--history", file, "--changes", "--metric", "paired_ratio"}, so, err), 0) << err.str();
  EXPECT_EQ(po.str(), so.str());
  EXPECT_NE(po.str().find("c15..c16"), std::string::npos) << po.str();
  po.str("");
  EXPECT_EQ(cli::cmd_history({"--history", url_}, po, err), 0) << err.str();
  EXPECT_NE(po.str().find("r23"), std::string::npos) << po.str();
}

// Several runners record at the same moment, into a database none has used yet (the tables are
// created concurrently too): every run lands whole.
TEST_F(PostgresHistory, ConcurrentWritersLoseNothing) {
  constexpr int kWriters = 8, kRunsEach = 5;
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(start[1]);
      char go;
      int rc = read(start[0], &go, 1) == 0 ? 0 : 3;  // EOF: every writer released at once
      try {
        History history(url_);
        for (int k = 0; k < kRunsEach; ++k) {
          const std::string id = "w" + std::to_string(w) + "-" + std::to_string(k);
          history.record(make_run(id,
                                  {make_scenario("mlp", Precision::fp32, 32, jittered(0.01 * (w + 1), 0.01, 10, k)),
                                   make_scenario("cnn", Precision::fp32, 32, jittered(0.02, 0.01, 10, k))},
                                  "Test CPU 9000", "2026-04-01T00:00:0" + std::to_string(k) + "Z"),
                         "results/" + id);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        rc = 1;
      }
      _exit(rc);
    }
    children.push_back(pid);
  }
  close(start[0]);
  close(start[1]);
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer failed, status " << status;
  }
  History history(url_);
  const auto runs = history.runs();
  EXPECT_EQ(runs.size(), static_cast<std::size_t>(kWriters * kRunsEach));
  std::set<std::string> ids;
  for (const auto& r : runs) {
    ids.insert(r.run_id);
    EXPECT_EQ(r.scenarios, 2) << r.run_id;
  }
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kWriters * kRunsEach));
  EXPECT_EQ(history.trend("cnn/fp32/w0/a1/b32").size(), static_cast<std::size_t>(kWriters * kRunsEach));
}

// Tables of a newer trainbench are refused, never written.
TEST_F(PostgresHistory, NewerSchemaIsRefused) {
  { History first(url_); }
  const auto r = PostgresServer::get().psql(db_name_, "INSERT INTO trainbench_schema (version) VALUES (99)");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  try {
    History h(url_);
    FAIL() << "a newer schema was opened";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "trainbench_schema");
    EXPECT_NE(std::string(e.what()).find("schema version 99, newer than this trainbench's"), std::string::npos)
        << e.what();
  }
}

}  // namespace

// Needs no server: nothing listens on port 1.
TEST(PostgresHistoryUnreachable, IsAnOutputErrorThatHidesThePassword) {
  const std::string url = "postgresql://ci:s3cret@127.0.0.1:1/trainbench?connect_timeout=3";
  EXPECT_EQ(tb::redacted_history_location(url), "postgresql://ci:***@127.0.0.1:1/trainbench?connect_timeout=3");
  EXPECT_EQ(tb::redacted_history_location("postgres://host/db"), "postgres://host/db");
  EXPECT_EQ(tb::redacted_history_location("/tmp/h.sqlite"), "/tmp/h.sqlite");
  try {
    tb::History h(url);
    FAIL() << "connected to nothing";
  } catch (const tb::OutputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("s3cret"), std::string::npos) << what;
    EXPECT_NE(what.find("ci:***@127.0.0.1:1"), std::string::npos) << what;
  } catch (const tb::InputError& e) {
    // A build without libpq refuses the URL as input instead.
    EXPECT_NE(std::string(e.what()).find("without PostgreSQL support"), std::string::npos) << e.what();
  }
}
