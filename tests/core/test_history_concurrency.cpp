// Concurrent runs on one history database: eight processes create the database and record
// their runs at the same moment; every run lands whole and none replaces another. A read-only
// database folder is an OutputError, not bad input.
#include "harness/core/history.hpp"

#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "harness/core/error.hpp"
#include "harness/core/run_id.hpp"
#include "tests/core/synthetic_runs.hpp"
#include "tests/core/tmpfs_mount.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tb;
using tb::testing::jittered;
using tb::testing::make_run;
using tb::testing::make_scenario;

class HistoryConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb_test_history_conc_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    umount2((dir_ / "ro").c_str(), MNT_DETACH);  // left over by a crashed earlier run
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// The run the i-th writer records: ids as make_run_id makes them, all in the same second.
RunResult writer_run(int i) {
  const auto same_second = std::chrono::system_clock::time_point(std::chrono::seconds(1796282100));
  std::vector<ScenarioResult> scenarios;
  for (int batch : {16, 32, 64})
    scenarios.push_back(make_scenario("mlp", Precision::fp32, batch, jittered(0.01 * (i + 1), 0.01, 20, i)));
  return make_run(make_run_id("quick", same_second, 1000 + i, static_cast<std::uint16_t>(i)),
                  std::move(scenarios), "Test CPU 9000", "2026-12-03T07:15:00Z");
}

TEST_F(HistoryConcurrency, ParallelProcessesAllLand) {
  constexpr int kWriters = 8;
  const std::string db = (dir_ / "shared" / "history.sqlite").string();  // none exists yet
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
        History history(db);
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

  History history(db);
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

TEST_F(HistoryConcurrency, ReadOnlyFolderIsAnOutputError) {
  tb::testing::TmpfsMount read_only(dir_ / "ro", MS_RDONLY);
  if (!read_only.mounted()) GTEST_SKIP() << read_only.skip_reason();
  const std::string db = (dir_ / "ro" / "history.sqlite").string();
  try {
    History history(db);
    FAIL() << "opened a database in a read-only folder";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), db);
  }
}

}  // namespace
