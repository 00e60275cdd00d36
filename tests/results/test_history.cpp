#include <trainbench/results/history.hpp>

#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/cli/commands.hpp>
#include <trainbench/runner/run_id.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/golden_file.hpp"
#include "tests/helpers/synthetic_runs.hpp"
#include "tests/helpers/tmpfs_mount.hpp"

namespace {

using namespace tb;
using tb::cli::cmd_history;
using tb::testing::jittered;
using tb::testing::make_run;
using tb::testing::make_scenario;

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tb_test_history_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    umount2((dir_ / "ro").c_str(), MNT_DETACH);  // left mounted by a crashed earlier run
    std::filesystem::remove_all(dir_);
    db_ = (dir_ / "sub" / "history.sqlite").string();  // directory is created on open
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Three runs a day apart; the middle one is 20% slower and has an oom scenario.
  void record_three(History& h) {
    h.record(make_run("r1",
                      {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 20, 1)),
                       make_scenario("cnn", Precision::fp32, 32, jittered(0.030, 0.01, 20, 2))},
                      "Test CPU 9000", "2026-01-01T00:00:00Z", "aaaa1111"),
             "results/r1");
    auto r2 = make_run("r2",
                       {make_scenario("mlp", Precision::fp32, 32, jittered(0.012, 0.01, 20, 3)),
                        tb::testing::failed_scenario("cnn", Precision::fp32, 32, ScenarioStatus::oom, "oom")},
                       "Test CPU 9000", "2026-01-02T00:00:00Z", "bbbb2222");
    r2.scenarios[0].memory.peak_rss_bytes = 12345;
    h.record(r2, "results/r2");
    h.record(make_run("r3", {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 20, 5))}, "Test CPU 9000",
                      "2026-01-03T00:00:00Z", "cccc3333"),
             "results/r3");
  }

  std::filesystem::path dir_;
  std::string db_;
};

TEST_F(HistoryTest, RecordAndListNewestFirst) {
  History h(db_);
  record_three(h);
  const auto runs = h.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].run_id, "r3");
  EXPECT_EQ(runs[2].run_id, "r1");
  EXPECT_EQ(runs[1].git_revision, "bbbb2222");
  EXPECT_EQ(runs[1].results_path, "results/r2");
  EXPECT_EQ(runs[1].matrix, "synthetic");
  EXPECT_EQ(runs[1].scenarios, 2);
  EXPECT_EQ(runs[1].ok, 1);
  EXPECT_EQ(h.runs(2).size(), 2u);
}

TEST_F(HistoryTest, FindByIdLastAndRevisionPrefix) {
  History h(db_);
  record_three(h);
  const auto r2 = h.find("r2");
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(r2->run_id, "r2");
  ASSERT_EQ(r2->scenarios.size(), 2u);
  EXPECT_EQ(r2->scenarios[1].status, ScenarioStatus::oom);
  EXPECT_EQ(r2->scenarios[0].step_times_s.size(), 20u);  // full results JSON is stored

  EXPECT_EQ(h.find("last")->run_id, "r3");
  EXPECT_EQ(h.find("aaaa1")->run_id, "r1");
  EXPECT_FALSE(h.find("ffff").has_value());
  EXPECT_FALSE(h.find("no-such-run").has_value());
  EXPECT_FALSE(h.find("aa").has_value());  // too short to be a revision

  EXPECT_EQ(h.find_before("r3")->run_id, "r2");
  EXPECT_EQ(h.find_before("r2")->run_id, "r1");
  EXPECT_FALSE(h.find_before("r1").has_value());
  EXPECT_FALSE(h.find_before("nope").has_value());
}

TEST_F(HistoryTest, ReRecordingReplacesAndSurvivesReopen) {
  {
    History h(db_);
    record_three(h);
    h.record(make_run("r1", {make_scenario("mlp", Precision::fp32, 32, jittered(0.020, 0.01, 20, 9))}, "Test CPU 9000",
                      "2026-01-01T00:00:00Z", "aaaa1111"),
             "results/r1-again");
  }
  History h(db_);
  const auto runs = h.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2].run_id, "r1");
  EXPECT_EQ(runs[2].results_path, "results/r1-again");
  EXPECT_EQ(runs[2].scenarios, 1);
  EXPECT_NEAR(h.find("r1")->scenarios[0].step_time_s.median, 0.020, 0.001);
}

TEST_F(HistoryTest, TrendOfOneScenarioOldestFirst) {
  History h(db_);
  record_three(h);
  const auto t = h.trend("mlp/fp32/w0/a1/b32");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].run_id, "r1");
  EXPECT_EQ(t[2].run_id, "r3");
  EXPECT_NEAR(t[1].median_s, 0.012, 0.0005);
  EXPECT_LE(t[1].ci_low, t[1].median_s);
  EXPECT_GE(t[1].ci_high, t[1].median_s);
  EXPECT_NEAR(t[1].samples_per_s, 32 / 0.012, 50);
  EXPECT_EQ(t[1].peak_bytes, 12345);
  EXPECT_EQ(t[1].git_revision, "bbbb2222");

  const auto newest2 = h.trend("mlp/fp32/w0/a1/b32", 2);
  ASSERT_EQ(newest2.size(), 2u);
  EXPECT_EQ(newest2[0].run_id, "r2");

  const auto cnn = h.trend("cnn/fp32/w0/a1/b32");
  ASSERT_EQ(cnn.size(), 2u);
  EXPECT_EQ(cnn[1].status, "oom");
  EXPECT_TRUE(h.trend("nothing").empty());
}

TEST_F(HistoryTest, ScenarioIdsInFirstRecordedOrderAndByMatrix) {
  History h(db_);
  record_three(h);
  auto other = make_run("r4", {make_scenario("gpt", Precision::fp32, 8, jittered(0.02, 0.01, 20, 7))}, "Test CPU 9000",
                        "2026-01-04T00:00:00Z", "dddd4444");
  other.matrix_name = "other";
  h.record(other, "results/r4");
  EXPECT_EQ(h.scenario_ids(),
            (std::vector<std::string>{"mlp/fp32/w0/a1/b32", "cnn/fp32/w0/a1/b32", "gpt/fp32/w0/a1/b8"}));
  EXPECT_EQ(h.scenario_ids("other"), (std::vector<std::string>{"gpt/fp32/w0/a1/b8"}));
  EXPECT_TRUE(h.scenario_ids("nothing").empty());
}

TEST_F(HistoryTest, HistoryCommandWritesATrendPagePerScenario) {
  {
    History h(db_);
    record_three(h);
  }
  const auto page = (dir_ / "trend.html").string();
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--html", page}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("(2 scenarios)"), std::string::npos) << out.str();
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("\"id\": \"trend-mlp-fp32-w0-a1-b32\""), std::string::npos);
  EXPECT_NE(html.find("\"id\": \"trend-cnn-fp32-w0-a1-b32\""), std::string::npos);
  EXPECT_NE(html.find("<table id=\"tb-trends\">"), std::string::npos);

  out.str("");
  ASSERT_EQ(cmd_history({"--db", db_, "--html", page, "--scenario", "cnn/fp32/w0/a1/b32"}, out, err), 0);
  EXPECT_NE(out.str().find("(1 scenario)"), std::string::npos) << out.str();
  err.str("");
  EXPECT_EQ(cmd_history({"--db", db_, "--html", page, "--matrix", "nope"}, out, err), 2);
  EXPECT_NE(err.str().find("--matrix: no recorded results for 'nope'"), std::string::npos) << err.str();
}

TEST_F(HistoryTest, RunWithoutStartTimeGetsRecordingTime) {
  History h(db_);
  auto run = make_run("no-time", {});
  run.environment.erase("started_at");
  h.record(run, "x");
  EXPECT_EQ(h.runs()[0].started_at.size(), 20u);  // 2026-01-01T00:00:00Z
  run.run_id = "";
  EXPECT_THROW(h.record(run, "x"), InputError);
}

TEST_F(HistoryTest, NotADatabaseIsAnInputError) {
  std::filesystem::create_directories(dir_);
  const auto bogus = dir_ / "bogus.sqlite";
  std::ofstream(bogus) << "this is not an sqlite database, just some text long enough to matter";
  EXPECT_THROW(History{bogus.string()}, InputError);
}

TEST_F(HistoryTest, HistoryCommandListsRunsAndTrend) {
  {
    History h(db_);
    record_three(h);
  }
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_}, out, err), 0) << err.str();
  const std::string list = out.str();
  EXPECT_NE(list.find("run_id"), std::string::npos);
  EXPECT_LT(list.find("r3"), list.find("r1"));     // newest first
  EXPECT_NE(list.find("1/2"), std::string::npos);  // r2: one of two ok

  out.str("");
  ASSERT_EQ(cmd_history({"--db", db_, "--scenario", "mlp/fp32/w0/a1/b32"}, out, err), 0) << err.str();
  const std::string trend = out.str();
  EXPECT_NE(trend.find("12.0"), std::string::npos);  // r2's median in ms
  // Sparkline: r1 and r3 are the fastest (lowest level), r2 the slowest (highest level).
  EXPECT_NE(trend.find("higher = slower, x = not ok): _#_\n"), std::string::npos) << trend;

  out.str("");
  ASSERT_EQ(cmd_history({"--db", db_, "--scenario", "cnn/fp32/w0/a1/b32"}, out, err), 0);
  EXPECT_NE(out.str().find("): =x\n"), std::string::npos) << out.str();

  out.str("");
  ASSERT_EQ(cmd_history({"--db", db_, "--limit", "1"}, out, err), 0);
  EXPECT_EQ(out.str().find("r1"), std::string::npos);
}

TEST_F(HistoryTest, HistoryCommandOutputMatchesGolden) {
  {
    History h(db_);
    record_three(h);
  }
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_}, out, err), 0) << err.str();
  out << "----\n";
  ASSERT_EQ(cmd_history({"--db", db_, "--scenario", "mlp/fp32/w0/a1/b32"}, out, err), 0) << err.str();
  tb::test::expect_golden("history_output.txt", out.str());
}

TEST_F(HistoryTest, TrendColumnsStayAlignedWhateverTheWidths) {
  {
    History h(db_);
    // A long run id and a step time a thousand times the others: wider cells in every column.
    h.record(make_run("20260101T000000Z-a-long-run-id",
                      {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 20, 1))}, "Test CPU 9000",
                      "2026-01-01T00:00:00Z", "aaaa1111"),
             "results/a");
    h.record(make_run("r2", {make_scenario("mlp", Precision::fp32, 32, jittered(12.5, 0.01, 20, 2))}, "Test CPU 9000",
                      "2026-01-02T00:00:00Z", "bbbb2222"),
             "results/b");
  }
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--history", db_, "--scenario", "mlp/fp32/w0/a1/b32"}, out, err), 0) << err.str();
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);)
    if (line.rfind("run_id", 0) == 0 || line.rfind("r2", 0) == 0 || line.rfind("2026", 0) == 0) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << out.str();
  // Right-aligned figures under right-aligned titles: each figure ends where its title ends.
  for (const std::string title : {"median ms", "95% CI ms", "samples/s"}) {
    const std::size_t end = lines[0].find(title) + title.size();
    for (const auto* row : {&lines[1], &lines[2]}) {
      ASSERT_GE(row->size(), end) << out.str();
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>((*row)[end - 1]))) << title << "\n" << out.str();
      EXPECT_TRUE(end == row->size() || (*row)[end] == ' ') << title << "\n" << out.str();
    }
  }
}

TEST_F(HistoryTest, HistoryCommandRecordsAndRejectsBadInput) {
  std::filesystem::create_directories(dir_);
  const auto results = (dir_ / "run" / "results.json").string();
  save_results(make_run("from-file", {make_scenario("mlp", Precision::fp32, 32, jittered(0.01, 0.01, 10, 1))}),
               results);
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--record", (dir_ / "run").string()}, out, err), 0) << err.str();
  EXPECT_EQ(History(db_).find("last")->run_id, "from-file");

  EXPECT_EQ(cmd_history({"--db", db_, "--bogus"}, out, err), 2);
  EXPECT_EQ(cmd_history({"--db", db_, "--limit", "zero"}, out, err), 2);
  EXPECT_EQ(cmd_history({"--db", db_, "--scenario", "nope"}, out, err), 2);
  EXPECT_NE(err.str().find("nope"), std::string::npos);
  EXPECT_EQ(cmd_history({"--db", (dir_ / "missing.sqlite").string()}, out, err), 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "missing.sqlite"));  // listing never creates one
  out.str("");
  EXPECT_EQ(cmd_history({"--help"}, out, err), 0);
  EXPECT_NE(out.str().find("usage: trainbench history"), std::string::npos);
}

// The run the i-th writer records: ids as make_run_id makes them, all in the same second.
RunResult writer_run(int i) {
  const auto same_second = std::chrono::system_clock::time_point(std::chrono::seconds(1796282100));
  std::vector<ScenarioResult> scenarios;
  for (int batch : {16, 32, 64})
    scenarios.push_back(make_scenario("mlp", Precision::fp32, batch, jittered(0.01 * (i + 1), 0.01, 20, i)));
  return make_run(make_run_id("quick", same_second, 1000 + i, static_cast<std::uint16_t>(i)), std::move(scenarios),
                  "Test CPU 9000", "2026-12-03T07:15:00Z");
}

// Concurrent runs on one database: eight processes create it and record their runs at the same
// moment; every run lands whole and none replaces another.
TEST_F(HistoryTest, ParallelProcessesAllLand) {
  constexpr int kWriters = 8;
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kWriters; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(start[1]);
      char go;
      const bool started = read(start[0], &go, 1) == 0;  // EOF: every writer released at once
      int rc = started ? 0 : 3;
      try {
        History history(db_);  // none exists yet: created concurrently too
        history.record(writer_run(i), "results/writer-" + std::to_string(i));
      } catch (const std::exception& e) {
        fprintf(stderr, "writer %d: %s\n", i, e.what());
        rc = 1;
      }
      _exit(rc);
    }
    children.push_back(pid);
  }
  close(start[0]);
  close(start[1]);  // releases the writers
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer failed, status " << status;
  }

  History history(db_);
  const auto runs = history.runs();
  ASSERT_EQ(runs.size(), static_cast<std::size_t>(kWriters));
  std::set<std::string> ids;
  for (const auto& r : runs) {
    ids.insert(r.run_id);
    EXPECT_EQ(r.scenarios, 3) << r.run_id;
    EXPECT_EQ(r.ok, 3) << r.run_id;
  }
  for (int i = 0; i < kWriters; ++i) {
    const auto expected = writer_run(i);
    EXPECT_EQ(ids.count(expected.run_id), 1u) << expected.run_id;
    const auto stored = history.find(expected.run_id);  // new-format ids are found exactly
    ASSERT_TRUE(stored.has_value()) << expected.run_id;
    EXPECT_NEAR(stored->scenarios[0].step_time_s.median, 0.01 * (i + 1), 0.001);
  }
  EXPECT_EQ(history.trend("mlp/fp32/w0/a1/b32").size(), static_cast<std::size_t>(kWriters));
}

// A read-only folder is an output failure (exit 5), not bad input.
TEST_F(HistoryTest, ReadOnlyFolderIsAnOutputError) {
  tb::testing::TmpfsMount read_only(dir_ / "ro", MS_RDONLY);
  if (!read_only.mounted()) GTEST_SKIP() << read_only.skip_reason();
  const std::string db = (dir_ / "ro" / "history.sqlite").string();
  try {
    History history(db);
    FAIL() << "opened a database in a read-only folder";
  } catch (const OutputError& e) { EXPECT_EQ(e.path(), db); }
}

}  // namespace

namespace {

// 30 runs a day apart, each of the code at commit c00 .. c29: mlp is 10 ms with +-2% run-to-run
// noise and 10% slower from run 20 on; cnn stays at 30 ms (or changes by cnn_factor from run 20
// on too). Run 19 of cnn was measured on a loaded machine.
void record_history_with_a_slowdown(History& h, double cnn_factor = 1.0, double mlp_gate_pct = 0) {
  std::uint64_t state = 12345;
  const auto noise = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return 0.02 * (2.0 * static_cast<double>(state >> 11) / 9007199254740992.0 - 1.0);
  };
  for (int i = 0; i < 30; ++i) {
    char id[8], day[32], commit[8];
    std::snprintf(id, sizeof id, "r%02d", i);
    std::snprintf(day, sizeof day, "2026-02-%02dT00:00:00Z", i + 1);
    std::snprintf(commit, sizeof commit, "c%02d", i);
    const double mlp = 0.010 * (i >= 20 ? 1.10 : 1.0) * (1 + noise());
    const double cnn_ms = 0.030 * (i >= 20 ? cnn_factor : 1.0) * (1 + noise());
    auto cnn = make_scenario("cnn", Precision::fp32, 32, jittered(cnn_ms, 0.01, 20, 100 + i));
    if (i == 19) cnn = tb::testing::contended(cnn);
    auto run = make_run(id, {make_scenario("mlp", Precision::fp32, 32, jittered(mlp, 0.01, 20, i)), cnn},
                        "Test CPU 9000", day, "trainbench0rev");
    run.environment["code_under_test"] = {{"commit", commit}, {"source", "command line"}};
    if (mlp_gate_pct > 0) run.scenarios[0].params.gates.step_time_pct = mlp_gate_pct;
    h.record(run, std::string("results/") + id);
  }
}

}  // namespace

TEST_F(HistoryTest, TrendCarriesTheCommitUnderTestAndContention) {
  History h(db_);
  record_history_with_a_slowdown(h);
  const auto cnn = h.trend("cnn/fp32/w0/a1/b32");
  ASSERT_EQ(cnn.size(), 30u);
  EXPECT_EQ(cnn[19].commit, "c19");
  EXPECT_EQ(cnn[19].git_revision, "trainbench0rev");
  EXPECT_TRUE(cnn[19].contended);
  EXPECT_FALSE(cnn[18].contended);
  EXPECT_EQ(h.runs(1).front().commit, "c29");
  // Runs recorded before code_under_test existed read as "".
  History(db_).record(make_run("old", {}, "Test CPU 9000", "2025-01-01T00:00:00Z"), "results/old");
  EXPECT_EQ(h.runs().back().commit, "");
}

// --html DIR: an index and a page per scenario; the planted change is marked on mlp's page and
// listed first on the index; a folder trainbench did not write is refused whole.
TEST_F(HistoryTest, HistoryCommandWritesASiteWithChangePointsMarked) {
  {
    History h(db_);
    record_history_with_a_slowdown(h);
  }
  const auto site = dir_ / "site";
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--html", site.string()}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("and 2 scenario pages under"), std::string::npos) << out.str();
  const auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string index = read(site / "index.html");
  // The latest change: mlp's regression between c19 and c20, linked to its page.
  EXPECT_NE(index.find("<table id=\"tb-latest-changes\">"), std::string::npos) << index.substr(0, 3000);
  EXPECT_NE(index.find("<a href=\"scenarios/mlp-fp32-w0-a1-b32.html\"><code>mlp/fp32/w0/a1/b32</code></a>"),
            std::string::npos);
  EXPECT_NE(index.find("<code>c19..c20</code></td><td class=\"num regression\">+"), std::string::npos);
  EXPECT_NE(index.find("<td class=\"quiet\">none</td>"), std::string::npos) << "cnn has no change point";
  const std::string mlp = read(site / "scenarios" / "mlp-fp32-w0-a1-b32.html");
  EXPECT_NE(mlp.find("href=\"../index.html\""), std::string::npos);
  EXPECT_NE(mlp.find("<script src=\"../assets/chart.min.js\"></script>"), std::string::npos);
  // The change point half-way between the runs of c19 and c20 (indices 19 and 20).
  EXPECT_TRUE(
      std::regex_search(mlp, std::regex("\"changes\": \\[\\s*\\{\\s*\"label\": \"\\+[0-9.]+%\",\\s*\"x\": 19\\.5")))
      << mlp.substr(mlp.find("\"changes\""), 200);
  const std::string cnn = read(site / "scenarios" / "cnn-fp32-w0-a1-b32.html");
  EXPECT_NE(cnn.find("<tr class=\"contended\"><td><code>r19</code>"), std::string::npos) << "contended run marked";
  EXPECT_NE(cnn.find("id=\"tb-no-changes\""), std::string::npos);

  // Rebuilt in place: a page of a scenario the history no longer has goes, the rest is rewritten.
  std::ofstream(site / "scenarios" / "gone.html") << "old";
  ASSERT_EQ(cmd_history({"--db", db_, "--html", site.string(), "--scenario", "cnn/fp32/w0/a1/b32"}, out, err), 0)
      << err.str();
  EXPECT_FALSE(std::filesystem::exists(site / "scenarios" / "gone.html"));
  EXPECT_FALSE(std::filesystem::exists(site / "scenarios" / "mlp-fp32-w0-a1-b32.html"));
  EXPECT_TRUE(std::filesystem::exists(site / "scenarios" / "cnn-fp32-w0-a1-b32.html"));

  // A folder of the user's: refused, nothing written or removed.
  const auto mine = dir_ / "mine";
  std::filesystem::create_directories(mine);
  std::ofstream(mine / "notes.html") << "mine";
  err.str("");
  EXPECT_EQ(cmd_history({"--db", db_, "--html", mine.string()}, out, err), 2);
  EXPECT_NE(err.str().find("--html: is a folder that trainbench did not write"), std::string::npos) << err.str();
  EXPECT_TRUE(std::filesystem::exists(mine / "notes.html"));
  EXPECT_FALSE(std::filesystem::exists(mine / "index.html"));
}

TEST_F(HistoryTest, ChangesNameTheCommitsAroundAPlantedSlowdown) {
  {
    History h(db_);
    record_history_with_a_slowdown(h);
  }
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--changes"}, out, err), 0) << err.str();
  const std::string text = out.str();
  // One change, in mlp, between the runs of c19 and c20, about +10%; none in cnn.
  EXPECT_NE(text.find("mlp/fp32/w0/a1/b32  r19"), std::string::npos) << text;
  EXPECT_NE(text.find("c19..c20"), std::string::npos) << text;
  EXPECT_EQ(text.find("cnn/fp32"), std::string::npos) << text;
  EXPECT_NE(text.find("1 change point in 2 scenarios"), std::string::npos) << text;
  EXPECT_NE(text.find("regression"), std::string::npos) << text;
  EXPECT_EQ(text.find("moved together"), std::string::npos) << text;

  // The gate: the regression started 10 runs ago.
  out.str("");
  EXPECT_EQ(cmd_history({"--db", db_, "--changes", "--fail-on-change", "5"}, out, err), 1) << out.str();
  EXPECT_NE(out.str().find("FAILS the gate"), std::string::npos) << out.str();
  // The same verdict as JUnit XML: mlp fails, cnn passes.
  const std::string junit = (dir_ / "changes.xml").string();
  out.str("");
  EXPECT_EQ(cmd_history({"--db", db_, "--changes", "--fail-on-change", "5", "--junit", junit}, out, err), 1);
  std::ifstream xml_file(junit);
  const std::string xml((std::istreambuf_iterator<char>(xml_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"cnn/fp32/w0/a1/b32\"/>"), std::string::npos) << xml;
  out.str("");
  EXPECT_EQ(cmd_history({"--db", db_, "--changes", "--fail-on-change", "20"}, out, err), 0) << out.str();
  EXPECT_NE(out.str().find("none, passed"), std::string::npos) << out.str();
  out.str("");
  EXPECT_EQ(cmd_history({"--db", db_, "--changes", "--fail-on-change", "5", "--window", "5"}, out, err), 0)
      << out.str();

  // samples/s falls where the step time rises: also a regression.
  out.str("");
  EXPECT_EQ(cmd_history({"--db", db_, "--changes", "--metric", "samples_per_s", "--fail-on-change", "5"}, out, err), 1)
      << out.str();
}

// The matrix's own threshold for a scenario (params.gates.step_time_pct of its newest run)
// replaces --fail-on-change's: mlp's +10% passes its 15%, fails the command line's 5%.
TEST_F(HistoryTest, ChangesGateByTheMatrixThresholdOfEachScenario) {
  {
    History h(db_);
    record_history_with_a_slowdown(h, 1.0, 15);
    EXPECT_DOUBLE_EQ(h.trend("mlp/fp32/w0/a1/b32").back().gate_step_time_pct, 15.0);
    EXPECT_DOUBLE_EQ(h.trend("cnn/fp32/w0/a1/b32").back().gate_step_time_pct, 0.0);
  }
  std::ostringstream out, err;
  EXPECT_EQ(cmd_history({"--db", db_, "--changes", "--fail-on-change", "5"}, out, err), 0) << out.str();
  EXPECT_NE(out.str().find("none, passed"), std::string::npos) << out.str();
}

TEST_F(HistoryTest, ChangesRefuseBadOptions) {
  {
    History h(db_);
    record_three(h);
  }
  const auto fails_with = [&](const std::vector<std::string>& args, const std::string& message) {
    std::ostringstream out, err;
    std::vector<std::string> full = {"--db", db_};
    full.insert(full.end(), args.begin(), args.end());
    EXPECT_EQ(cmd_history(full, out, err), 2) << out.str();
    EXPECT_NE(err.str().find(message), std::string::npos) << err.str();
  };
  fails_with({"--changes", "--metric", "loss"}, "--metric: unknown metric 'loss' (known: step_time");
  fails_with({"--fail-on-change", "5"}, "--fail-on-change: needs --changes");
  fails_with({"--changes", "--fail-on-change", "-1"}, "--fail-on-change");
  fails_with({"--changes", "--fail-on-change", "5", "--window", "0"}, "--window: expected a positive integer");
  fails_with({"--changes", "--scenario", "gpt/fp32"}, "no recorded results for scenario 'gpt/fp32'");
}

TEST_F(HistoryTest, ChangesSayWhenScenariosMovedTogether) {
  {
    History h(db_);
    record_history_with_a_slowdown(h, 1.15);
  }
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--changes"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("moved together: 2 of 2 scenarios between c19..c20 (+"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("contended runs nearby"), std::string::npos) << out.str();  // cnn's run 19
}

// A history recorded by `ab --history` against one reference build: the absolute step times
// carry the machine's drift (here every run from r08 on is 15% faster, as a VM's neighbours
// leaving), the paired ratios NEW/OLD do not, and only they show the planted 8% slowdown from
// c16 alone.
TEST_F(HistoryTest, PairedRatiosFollowTheCodeNotTheMachine) {
  {
    History h(db_);
    const auto uniform = [](std::uint64_t& state, double amplitude) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return amplitude * (2.0 * static_cast<double>(state >> 11) / 9007199254740992.0 - 1.0);
    };
    std::uint64_t mlp_state = 777, cnn_state = 4242;
    for (int i = 0; i < 24; ++i) {
      char id[8], day[32], commit[8];
      std::snprintf(id, sizeof id, "r%02d", i);
      std::snprintf(day, sizeof day, "2026-03-%02dT00:00:00Z", i + 1);
      std::snprintf(commit, sizeof commit, "c%02d", i);
      const double machine = i >= 8 ? 0.85 : 1.0;
      const double code = i >= 16 ? 1.08 : 1.0;
      const double ratio = code * (1 + uniform(mlp_state, 0.01)), cnn_ratio = code * (1 + uniform(cnn_state, 0.01));
      auto run =
          make_run(id,
                   {make_scenario("mlp", Precision::fp32, 32, jittered(0.010 * machine * ratio, 0.01, 20, i)),
                    make_scenario("cnn", Precision::fp32, 32, jittered(0.030 * machine * cnn_ratio, 0.01, 20, i))},
                   "Test CPU 9000", day, "trainbench0rev");
      run.environment["code_under_test"] = {{"commit", commit}, {"source", "command line"}};
      const auto paired = [](const char* scenario, double r) {
        return PairedRatio{.scenario = scenario, .ratio = r, .low = r * 0.99, .high = r * 1.01, .valid = true};
      };
      run.provenance.ab_session =
          AbSessionProvenance{.id = std::string("ab-") + id,
                              .side = "new",
                              .reference = "--old /opt/trainbench-pinned",
                              .paired = {paired("mlp/fp32/w0/a1/b32", ratio), paired("cnn/fp32/w0/a1/b32", cnn_ratio)}};
      h.record(run, std::string("results/") + id);
    }
    const auto points = h.trend("mlp/fp32/w0/a1/b32");
    ASSERT_EQ(points.size(), 24u);
    EXPECT_NEAR(points[20].paired_ratio, 1.08, 0.02);
    EXPECT_NEAR(points[20].paired_high / points[20].paired_low, 1.01 / 0.99, 1e-9);
  }
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--changes", "--metric", "paired_ratio"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("change points in step time NEW/OLD, paired (ab)"), std::string::npos) << out.str();
  // (Smaller shifts of a random stretch may show too: +-1% noise here, 5% tests at every split.)
  EXPECT_NE(out.str().find("moved together: 2 of 2 scenarios between c15..c16 (+"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(the ratios are paired: not the machine's drift)"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("c07..c08"), std::string::npos) << out.str();

  out.str("");
  ASSERT_EQ(cmd_history({"--db", db_, "--changes"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("moved together: 2 of 2 scenarios between c07..c08 (-"), std::string::npos)
      << "the machine's step, in the absolute times\n"
      << out.str();
  EXPECT_NE(out.str().find("the machine changing speed"), std::string::npos) << out.str();
}

// CI runners differ: runs of one scenario on two machines are two series, so the move to a
// slower runner is not a change point, and the output says the history was split.
TEST_F(HistoryTest, ChangesNeverSpanTwoMachines) {
  {
    History h(db_);
    for (int i = 0; i < 20; ++i) {
      char id[8], day[32];
      std::snprintf(id, sizeof id, "r%02d", i);
      std::snprintf(day, sizeof day, "2026-04-%02dT00:00:00Z", i + 1);
      const bool other = i >= 10;
      h.record(make_run(id, {make_scenario("mlp", Precision::fp32, 32, jittered(other ? 0.013 : 0.010, 0.01, 20, i))},
                        other ? "Other CPU 7000" : "Test CPU 9000", day),
               std::string("results/") + id);
    }
    const auto points = h.trend("mlp/fp32/w0/a1/b32");
    ASSERT_EQ(points.size(), 20u);
    EXPECT_EQ(points[0].machine, "Test CPU 9000 (cpu)");
    EXPECT_EQ(points[19].machine, "Other CPU 7000 (cpu)");
  }
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--changes"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("1 scenario was measured on 2 machines"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("0 change points in 2 series (1 scenario by machine)"), std::string::npos) << out.str();
}

// Runners that each keep a history: one exports, another imports, and the trends are the same;
// importing again changes nothing; a file that is not an export is refused naming its line, and
// nothing of it is recorded.
TEST_F(HistoryTest, ExportImportCarriesRunsBetweenHistories) {
  {
    History h(db_);
    record_three(h);
  }
  const std::string exported = (dir_ / "runs.jsonl").string();
  const std::string other = (dir_ / "other.sqlite").string();
  std::ostringstream out, err;
  ASSERT_EQ(cmd_history({"--db", db_, "--export", exported}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("exported 3 runs"), std::string::npos) << out.str();
  for (int i = 0; i < 2; ++i) {
    out.str("");
    ASSERT_EQ(cmd_history({"--db", other, "--import", exported}, out, err), 0) << err.str();
    EXPECT_NE(out.str().find("imported 3 runs"), std::string::npos) << out.str();
  }
  History a(db_), b(other);
  ASSERT_EQ(b.runs().size(), 3u);
  EXPECT_EQ(b.runs().front().run_id, "r3");
  EXPECT_EQ(b.runs().back().results_path, "results/r1");
  const auto ta = a.trend("mlp/fp32/w0/a1/b32"), tb_ = b.trend("mlp/fp32/w0/a1/b32");
  ASSERT_EQ(ta.size(), tb_.size());
  for (std::size_t i = 0; i < ta.size(); ++i) {
    EXPECT_EQ(ta[i].run_id, tb_[i].run_id);
    EXPECT_DOUBLE_EQ(ta[i].median_s, tb_[i].median_s);
    EXPECT_EQ(ta[i].peak_bytes, tb_[i].peak_bytes);
  }

  // Bad files: named with the line, nothing recorded.
  const auto fails_with = [&](const std::string& text, const std::string& message) {
    const std::string bad = (dir_ / "bad.jsonl").string();
    std::ofstream(bad) << text;
    const std::string fresh = (dir_ / "fresh.sqlite").string();
    std::ostringstream o, e;
    EXPECT_EQ(cmd_history({"--db", fresh, "--import", bad}, o, e), 2) << text;
    EXPECT_NE(e.str().find(message), std::string::npos) << e.str();
    EXPECT_TRUE(History(fresh).runs().empty()) << text;
  };
  std::string first_two;
  {
    std::ifstream in(exported);
    std::string header, run;
    std::getline(in, header);
    std::getline(in, run);
    first_two = header + "\n" + run + "\n";
  }
  fails_with("", "bad.jsonl: empty: not a trainbench history export");
  fails_with("{\"kind\": \"something else\"}\n", "bad.jsonl: line 1: not a trainbench history export");
  fails_with("{\"kind\": \"trainbench-history-export\", \"version\": 9}\n", "line 1: export version 9 is not known");
  fails_with(first_two + "{not json\n", "bad.jsonl: line 3: not a JSON object");
  fails_with(first_two + "{\"results_path\": \"x\"}\n", "line 3: no results object");
  EXPECT_EQ(cmd_history({"--db", other, "--import", (dir_ / "missing.jsonl").string()}, out, err), 2);
}
