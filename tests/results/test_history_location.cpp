// trainbench-needs-binary
// Where the history database is when no option names it (history_location.hpp), and that
// `trainbench compare --against last` and `trainbench history` find it from any folder.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <trainbench/results/history.hpp>
#include <trainbench/results/history_location.hpp>
#include "tests/helpers/cli_test.hpp"
#include "tests/helpers/synthetic_runs.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;
using testing::jittered;
using testing::make_run;
using testing::make_scenario;

HistoryEnvironment env_in(const fs::path& dir) {
  HistoryEnvironment env;
  env.home = (dir / "home").string();
  env.working_dir = dir / "work";
  return env;
}

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "";
}

TEST(HistoryLocation, OptionThenEnvironmentThenPerUserDefault) {
  const auto dir = test::scratch_dir("history_location_order");
  auto env = env_in(dir);
  EXPECT_EQ(resolve_history_location(std::nullopt, env).path,
            (dir / "home/.local/share/trainbench/history.sqlite").string());
  env.xdg_data_home = (dir / "xdg").string();
  EXPECT_EQ(resolve_history_location(std::nullopt, env).path, (dir / "xdg/trainbench/history.sqlite").string());
  env.xdg_data_home = "relative/xdg";  // the XDG spec ignores a relative path
  EXPECT_EQ(resolve_history_location(std::nullopt, env).path,
            (dir / "home/.local/share/trainbench/history.sqlite").string());
  env.trainbench_history = "/elsewhere/h.sqlite";
  EXPECT_EQ(resolve_history_location(std::nullopt, env).path, "/elsewhere/h.sqlite");
  const auto chosen = resolve_history_location(std::string("given.sqlite"), env);
  EXPECT_EQ(chosen.path, "given.sqlite");
  EXPECT_EQ(chosen.note, "");
  EXPECT_EQ(resolve_history_location(std::nullopt, HistoryEnvironment{}).path, kLegacyHistoryPath);
}

TEST(HistoryLocation, AnOldRelativeHistoryIsKeptUntilTheNewOneExists) {
  const auto dir = test::scratch_dir("history_location_legacy");
  const auto env = env_in(dir);
  touch(env.working_dir / kLegacyHistoryPath);
  const auto old = resolve_history_location(std::nullopt, env);
  EXPECT_EQ(old.path, kLegacyHistoryPath);
  EXPECT_NE(old.note.find("move it to " + default_history_path(env)), std::string::npos) << old.note;
  touch(default_history_path(env));
  const auto now = resolve_history_location(std::nullopt, env);
  EXPECT_EQ(now.path, default_history_path(env));
  EXPECT_EQ(now.note, "");
}

class HistoryFromAnyFolder : public test::CliTest {};

TEST_F(HistoryFromAnyFolder, CompareAgainstLastAndHistoryWorkFromAnotherFolder) {
  const auto xdg = dir_ / "xdg";
  {
    History h((xdg / "trainbench" / "history.sqlite").string());
    for (const char* id : {"r1", "r2"})
      h.record(make_run(id, {make_scenario("mlp", Precision::fp32, 32, jittered(0.010, 0.01, 40, 7))}, "Test CPU",
                        std::string("2026-01-0") + id[1] + "T00:00:00Z"),
               "gone");
  }
  fs::create_directories(dir_ / "elsewhere");
  const std::string env =
      "cd " + p("elsewhere") + " && HOME=" + p("home") + " XDG_DATA_HOME=" + xdg.string() + " TRAINBENCH_HISTORY= ";
  auto shell = [&](const std::string& args) {
    return test::run_shell(env + "OMP_NUM_THREADS=1 " + TB_TRAINBENCH_BIN + " " + args + " >> " + p("log.txt") +
                           " 2>&1");
  };
  EXPECT_EQ(shell("compare --against last"), 0);
  EXPECT_NE(log().find("old: r1\nnew: r2"), std::string::npos);
  EXPECT_EQ(shell("history --scenario mlp/fp32/w0/a1/b32"), 0);
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "results"));  // nothing written where the command ran

  // An old ./results/history.sqlite is used, with a note, while the per-user one does not exist.
  fs::create_directories(dir_ / "old" / "results");
  fs::copy_file(xdg / "trainbench" / "history.sqlite", dir_ / "old" / "results" / "history.sqlite");
  EXPECT_EQ(test::run_shell("cd " + p("old") + " && HOME=" + p("home") + " XDG_DATA_HOME=" + p("empty-xdg") +
                            " TRAINBENCH_HISTORY= " + TB_TRAINBENCH_BIN + " history >> " + p("log.txt") + " 2>&1"),
            0);
  EXPECT_NE(log().find("history: using results/history.sqlite"), std::string::npos);
  EXPECT_NE(log().find("r2"), std::string::npos);
}

}  // namespace
}  // namespace tb
