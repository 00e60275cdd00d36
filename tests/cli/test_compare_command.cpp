// trainbench compare end to end on synthetic results files: exit codes of the CI gate, the A/A
// noise floor, --against via the history database and the table (golden file).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/cli/commands.hpp>
#include <trainbench/measure/comparison.hpp>
#include <trainbench/results/history.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/golden_file.hpp"
#include "tests/helpers/synthetic_runs.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tb;
using tb::cli::cmd_compare;
using tb::testing::jittered;
using tb::testing::make_run;
using tb::testing::make_scenario;
using tb::testing::make_segmented_scenario;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two scenarios; `slowdown` multiplies the mlp b32 step time.
RunResult two_scenario_run(const std::string& id, double slowdown, std::uint64_t seed,
                           const std::string& cpu = "Test CPU 9000",
                           const std::string& started_at = "2026-01-01T00:00:00Z") {
  return make_run(id,
                  {make_scenario("mlp", Precision::fp32, 32, jittered(0.010 * slowdown, 0.01, 40, seed)),
                   make_scenario("cnn", Precision::fp32, 64, jittered(0.025, 0.01, 40, seed + 100))},
                  cpu, started_at);
}

class CompareCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb_test_compare_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const RunResult& run) {
    const auto dir = dir_ / name;
    save_results(run, (dir / "results.json").string());
    return dir.string();
  }

  int compare(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    return cmd_compare(args, out_, err_);
  }

  fs::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(CompareCommand, AaPairPassesTheGateAndWritesTheNoiseFloor) {
  const auto a = write("a", two_scenario_run("a", 1.0, 1));
  const auto b = write("b", two_scenario_run("b", 1.0, 2));
  EXPECT_EQ(compare({"--aa", "--fail-on-regression", "3", a, b}), 0) << err_.str();
  const auto floor_path = fs::path(b) / "noise-floor.json";
  ASSERT_TRUE(fs::exists(floor_path)) << out_.str();
  const auto floor = load_noise_floor(floor_path.string());
  ASSERT_EQ(floor.entries.size(), 2u);
  for (const auto& e : floor.entries) EXPECT_LT(e.abs_change_pct, 2.0) << e.id;

  const auto custom = (dir_ / "floors" / "aa.json").string();
  EXPECT_EQ(compare({"--aa", "--noise-out", custom, a, b}), 0);
  EXPECT_TRUE(fs::exists(custom));
}

TEST_F(CompareCommand, PlantedSlowdownFailsTheGate) {
  const auto old_dir = write("old", two_scenario_run("old", 1.0, 1));
  const auto new_dir = write("new", two_scenario_run("new", 1.10, 2));
  EXPECT_EQ(compare({old_dir, new_dir}), 0) << "no gate requested";
  EXPECT_NE(out_.str().find("slower"), std::string::npos);
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, new_dir}), 1) << err_.str();
  EXPECT_NE(out_.str().find("REGRESSION (> 5.0%)"), std::string::npos) << out_.str();
  EXPECT_EQ(compare({"--fail-on-regression", "15", old_dir, new_dir}), 0);

  // An A/A floor of 12% for the slowed scenario absorbs the 10% change.
  NoiseFloor floor;
  floor.entries.push_back(
      {"mlp/fp32/w0/a1/b32", scenario_key(two_scenario_run("x", 1, 1).scenarios[0].params), 12.0, 2.0});
  const auto floor_path = (dir_ / "floor.json").string();
  save_noise_floor(floor, floor_path);
  EXPECT_EQ(compare({"--fail-on-regression", "5", "--noise", floor_path, old_dir, new_dir}), 0);
}

TEST_F(CompareCommand, DifferentHardwareIsRefusedWithExitCode3) {
  const auto old_dir = write("old", two_scenario_run("old", 1.0, 1));
  const auto new_dir = write("new", two_scenario_run("new", 1.0, 2, "Other CPU"));
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, new_dir}), 3);
  EXPECT_NE(err_.str().find("cpu.model"), std::string::npos) << err_.str();
  EXPECT_EQ(compare({"--allow-env-mismatch", old_dir, new_dir}), 0);
  EXPECT_NE(err_.str().find("warning"), std::string::npos);
}

TEST_F(CompareCommand, BadInputIsExitCode2) {
  const auto good = write("good", two_scenario_run("good", 1.0, 1));
  std::ofstream(dir_ / "bad.json") << "{ not json";
  EXPECT_EQ(compare({good, (dir_ / "bad.json").string()}), 2);
  EXPECT_NE(err_.str().find("bad.json"), std::string::npos) << err_.str();
  EXPECT_EQ(compare({good, (dir_ / "missing").string()}), 2);
  EXPECT_EQ(compare({good}), 2);
  EXPECT_EQ(compare({"--fail-on-regression", "lots", good, good}), 2);
  EXPECT_NE(err_.str().find("--fail-on-regression"), std::string::npos);
  EXPECT_EQ(compare({"--frobnicate", good, good}), 2);
  EXPECT_EQ(compare({"--noise", (dir_ / "bad.json").string(), good, good}), 2);
  EXPECT_EQ(compare({"--against", "last", "--db", (dir_ / "none.sqlite").string()}), 2);
}

TEST_F(CompareCommand, HelpDocumentsExitCodes) {
  EXPECT_EQ(compare({"--help"}), 0);
  for (const char* text : {"0  no regression", "1  regression", "2  usage or input error", "3  environments differ",
                           "4  the gate refused", "5  an output"})
    EXPECT_NE(out_.str().find(text), std::string::npos) << text;
}

// An output that cannot be written is not bad input: OutputError reaches main (exit 5), and the
// previous noise floor stays as it was.
TEST_F(CompareCommand, UnwritableOutputsAreOutputErrors) {
  const auto a = write("a", two_scenario_run("a", 1.0, 1));
  const auto b = write("b", two_scenario_run("b", 1.0, 2));
  std::ofstream(dir_ / "file") << "x";
  const auto under_file = (dir_ / "file" / "out.json").string();
  EXPECT_THROW(compare({"--json", under_file, a, b}), OutputError);
  EXPECT_THROW(compare({"--aa", "--noise-out", under_file, a, b}), OutputError);

  const auto floor_path = dir_ / "noise.json";
  ASSERT_EQ(compare({"--aa", "--noise-out", floor_path.string(), a, b}), 0) << err_.str();
  const std::string good = read_file(floor_path);
  fs::create_directories(dir_ / "blocked.json" / "keep");  // a folder where the file would go
  EXPECT_THROW(compare({"--aa", "--noise-out", (dir_ / "blocked.json").string(), a, b}), OutputError);
  EXPECT_EQ(read_file(floor_path), good);
}

// The CI-facing files: JUnit XML, the Markdown summary, and on GitHub Actions the summary
// appended to the step summary file (after what earlier steps wrote there).
TEST_F(CompareCommand, WritesJUnitMarkdownAndAppendsToTheGitHubStepSummary) {
  const auto old_dir = write("old", two_scenario_run("old", 1.0, 1));
  const auto new_dir = write("new", two_scenario_run("new", 1.10, 2));
  const auto summary = dir_ / "step-summary.md";
  std::ofstream(summary) << "an earlier step\n";
  ::setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  const int code = compare({"--fail-on-regression", "5", "--junit", (dir_ / "junit.xml").string(), "--markdown",
                            (dir_ / "summary.md").string(), old_dir, new_dir});
  ::unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(code, 1) << err_.str();
  const std::string md = read_file(dir_ / "summary.md");
  EXPECT_EQ(md.rfind("### trainbench compare: 1 of 2 scenarios failed the 5% gate\n", 0), 0u) << md;
  EXPECT_NE(md.find("| **failed** | `mlp/fp32/w0/a1/b32` |"), std::string::npos) << md;
  EXPECT_NE(md.find("two separate runs"), std::string::npos) << md;
  EXPECT_EQ(read_file(summary), "an earlier step\n" + md + "\n");
  EXPECT_NE(read_file(dir_ / "junit.xml").find("failures=\"1\""), std::string::npos);

  // Without the variable nothing is appended; a step summary that cannot be written is an
  // output error (exit 5), as every other output.
  ASSERT_EQ(compare({old_dir, old_dir}), 0) << err_.str();
  EXPECT_EQ(read_file(summary), "an earlier step\n" + md + "\n");
  ::setenv("GITHUB_STEP_SUMMARY", (dir_ / "no-such-folder" / "summary.md").c_str(), 1);
  EXPECT_THROW(compare({old_dir, new_dir}), OutputError);
  ::unsetenv("GITHUB_STEP_SUMMARY");
}

TEST_F(CompareCommand, AgainstRunsInTheHistory) {
  const auto db = (dir_ / "history.sqlite").string();
  {
    History h(db);
    h.record(two_scenario_run("r1", 1.0, 1, "Test CPU 9000", "2026-01-01T00:00:00Z"), "gone/r1");
    auto r2 = two_scenario_run("r2", 1.10, 2, "Test CPU 9000", "2026-01-02T00:00:00Z");
    r2.environment["git_revision"] = "feedbeef00";
    h.record(r2, "gone/r2");
  }
  // NEW defaults to the newest run (r2), "last" to the one before it (r1).
  EXPECT_EQ(compare({"--db", db, "--against", "last", "--fail-on-regression", "5"}), 1) << err_.str();
  EXPECT_NE(out_.str().find("old: r1\nnew: r2"), std::string::npos) << out_.str();

  // A NEW results file not in the history: "last" is the newest recorded run.
  const auto fresh = write("fresh", two_scenario_run("r3", 1.10, 3, "Test CPU 9000", "2026-01-03T00:00:00Z"));
  EXPECT_EQ(compare({"--db", db, "--against", "last", "--fail-on-regression", "5", fresh}), 0);
  EXPECT_NE(out_.str().find("old: r2\nnew: r3"), std::string::npos) << out_.str();
  EXPECT_EQ(compare({"--db", db, "--against", "r1", "--fail-on-regression", "5", fresh}), 1);
  EXPECT_EQ(compare({"--db", db, "--against", "feedbeef", fresh}), 0);
  EXPECT_NE(out_.str().find("old: r2"), std::string::npos);
  EXPECT_EQ(compare({"--db", db, "--against", "nosuchrun", fresh}), 2);
  EXPECT_NE(err_.str().find("nosuchrun"), std::string::npos);
}

// "What was seen" 3: the gate passed a NEW run whose scenarios crashed, ran out of memory,
// diverged or were missing, and a NEW run with nothing comparable.
TEST_F(CompareCommand, BrokenOrMissingScenariosFailTheGate) {
  const auto old_dir = write("old", two_scenario_run("old", 1.0, 1));
  for (auto status : {ScenarioStatus::failed, ScenarioStatus::oom, ScenarioStatus::diverged}) {
    auto run = two_scenario_run("new", 1.0, 2);
    run.scenarios[1].status = status;
    run.scenarios[1].message = "broke";
    const auto new_dir = write(std::string("new_") + to_string(status), run);
    EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, new_dir}), 1) << to_string(status);
    EXPECT_NE(out_.str().find("BROKEN"), std::string::npos) << out_.str();
    EXPECT_EQ(compare({"--fail-on-regression", "5", "--allow-broken", old_dir, new_dir}), 0);
    EXPECT_EQ(compare({old_dir, new_dir}), 0) << "without a gate nothing fails";
  }
  auto missing = two_scenario_run("missing", 1.0, 2);
  missing.scenarios.pop_back();
  const auto missing_dir = write("missing", missing);
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, missing_dir}), 1);
  EXPECT_NE(out_.str().find("broken: 1 scenario"), std::string::npos) << out_.str();

  // NEW without any scenario: nothing comparable, and what OLD had is missing: a failure.
  auto empty = two_scenario_run("empty", 1.0, 2);
  empty.scenarios.clear();
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, write("empty", empty)}), 1);
  // Two different matrices: nothing comparable is an error, never a pass.
  auto other = make_run("other", {make_scenario("gpt", Precision::fp32, 8, jittered(0.02, 0.01, 40, 9))});
  const auto other_dir = write("other", other);
  EXPECT_EQ(compare({old_dir, other_dir}), 2);
  EXPECT_NE(err_.str().find("nothing comparable"), std::string::npos) << err_.str();
  EXPECT_EQ(compare({"--fail-on-regression", "5", "--allow-broken", old_dir, other_dir}), 2);
}

// "What was seen" 6: a run slowed by another process was reported as regressions.
TEST_F(CompareCommand, ContendedDataIsNeverARegression) {
  const auto old_dir = write("old", two_scenario_run("old", 1.0, 1));
  auto slow = two_scenario_run("new", 1.5, 2);
  slow.scenarios[0] = tb::testing::contended(slow.scenarios[0]);
  const auto new_dir = write("new", slow);
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, new_dir}), 4) << out_.str();
  EXPECT_NE(out_.str().find("CONTENDED"), std::string::npos) << out_.str();
  EXPECT_NE(err_.str().find("refused"), std::string::npos) << err_.str();
  // A real regression in an uncontended scenario still fails (exit 1 beats 4).
  slow.scenarios[1] = make_scenario("cnn", Precision::fp32, 64, jittered(0.040, 0.01, 40, 5));
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, write("new2", slow)}), 1);
}

// Tried as a user: two short runs (a couple of rounds, so no interval) with every step twice as
// slow went through the gate with exit 0. A gate that judged nothing refuses (exit 4) instead,
// naming the scenarios and the way out; a judged regression elsewhere still fails (exit 1).
TEST_F(CompareCommand, GateWithoutAnIntervalRefusesInsteadOfPassing) {
  const auto short_run = [](const std::string& id, double step_s, std::uint64_t seed) {
    return make_run(id, {make_scenario("mlp", Precision::fp32, 128, jittered(step_s, 0.3, 6, seed))});
  };
  const auto old_dir = write("old", short_run("old", 0.02, 8));
  const auto new_dir = write("new", short_run("new", 0.04, 9));
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, new_dir}), 4) << out_.str() << err_.str();
  EXPECT_NE(out_.str().find("NOT JUDGED (no interval)"), std::string::npos) << out_.str();
  EXPECT_NE(err_.str().find("gate refused: no interval for 1 scenario (mlp/fp32/w0/a1/b128)"), std::string::npos)
      << err_.str();
  EXPECT_NE(err_.str().find("steps.rounds"), std::string::npos) << err_.str();
  // Without a gate nothing is refused: the table is information.
  EXPECT_EQ(compare({old_dir, new_dir}), 0);
}

// "What was seen" 5: an A/A pair with +1266% was accepted as noise, and the gate then passed a
// 12x slowdown.
TEST_F(CompareCommand, ImplausibleNoiseIsRefused) {
  const auto a = write("a", two_scenario_run("a", 1.0, 1));
  const auto loaded = write("loaded", two_scenario_run("loaded", 13.0, 2));
  EXPECT_EQ(compare({"--aa", a, loaded}), 2);
  EXPECT_NE(err_.str().find("not noise"), std::string::npos) << err_.str();
  EXPECT_FALSE(fs::exists(fs::path(loaded) / "noise-floor.json"));
  auto contended_run = two_scenario_run("c", 1.0, 3);
  contended_run.scenarios[0] = tb::testing::contended(contended_run.scenarios[0]);
  EXPECT_EQ(compare({"--aa", a, write("c", contended_run)}), 2);
  // A hand-made noise file with such a floor is refused too.
  NoiseFloor floor;
  floor.entries.push_back(
      {"mlp/fp32/w0/a1/b32", scenario_key(two_scenario_run("x", 1, 1).scenarios[0].params), 1266.0, 2.0});
  const auto floor_path = (dir_ / "floor.json").string();
  save_noise_floor(floor, floor_path);
  EXPECT_EQ(compare({"--fail-on-regression", "5", "--noise", floor_path, a, loaded}), 2);
  EXPECT_NE(err_.str().find("not run-to-run noise"), std::string::npos) << err_.str();
  // A plausible A/A pair records where it came from.
  const auto b = write("b", two_scenario_run("b", 1.0, 4));
  ASSERT_EQ(compare({"--aa", a, b}), 0) << err_.str();
  std::ifstream in(fs::path(b) / "noise-floor.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["source"]["old_run_id"], "a");
  EXPECT_EQ(j["source"]["new_run_id"], "b");
  EXPECT_EQ(j["source"]["environment"]["cpu_model"], "Test CPU 9000");
}

// "What was seen" 4: --against last took a run of another matrix, and a git revision shared by
// all runs compared the newest run with itself.
TEST_F(CompareCommand, AgainstLastMeansTheSameMatrixNeverItself) {
  const auto db = (dir_ / "history.sqlite").string();
  auto seed_run = make_run("seed-1", {make_scenario("resnet", Precision::fp32, 64, jittered(0.2, 0.01, 40, 1))},
                           "Test CPU 9000", "2026-01-01T00:00:00Z");
  seed_run.matrix_name = "seed";
  auto q1 = two_scenario_run("quick-1", 1.0, 1, "Test CPU 9000", "2026-01-02T00:00:00Z");
  q1.matrix_name = "quick";
  q1.matrix_digest = "aaaa";
  auto q_other = two_scenario_run("quick-other", 1.0, 1, "Test CPU 9000", "2026-01-03T00:00:00Z");
  q_other.matrix_name = "quick";
  q_other.matrix_digest = "bbbb";  // same name, other content (e.g. --set steps.max=...)
  auto q2 = two_scenario_run("quick-2", 1.0, 2, "Test CPU 9000", "2026-01-04T00:00:00Z");
  q2.matrix_name = "quick";
  q2.matrix_digest = "aaaa";
  auto s2 = seed_run;
  s2.run_id = "seed-2";
  s2.environment["started_at"] = "2026-01-05T00:00:00Z";
  {
    History h(db);
    for (const auto* r : {&seed_run, &q1, &q_other, &q2, &s2}) h.record(*r, "gone");
  }
  const auto q2_dir = write("q2", q2);
  EXPECT_EQ(compare({"--db", db, "--against", "last", "--fail-on-regression", "5", q2_dir}), 0) << err_.str();
  EXPECT_NE(out_.str().find("old: quick-1\nnew: quick-2"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("against: run quick-1"), std::string::npos) << out_.str();
  // Every run shares one git revision: the newest of it that is not NEW and has NEW's matrix.
  EXPECT_EQ(compare({"--db", db, "--against", "0123", q2_dir}), 0) << err_.str();
  EXPECT_NE(out_.str().find("old: quick-1\nnew: quick-2"), std::string::npos) << out_.str();
  // NEW itself by id is refused; the first run of a matrix has nothing to compare against.
  EXPECT_EQ(compare({"--db", db, "--against", "quick-2", q2_dir}), 2);
  EXPECT_EQ(compare({"--db", db, "--against", "last", write("q1", q1)}), 2);
  EXPECT_NE(err_.str().find("no earlier run of matrix 'quick'"), std::string::npos) << err_.str();
}

// Segments make the gate robust to drift inside the runs: a scenario whose segments wander by a
// few percent is "noisy", not a regression; a 20% slowdown is still one.
TEST_F(CompareCommand, SegmentedRunsGateOnDriftAwareIntervals) {
  auto run_with = [&](const std::string& id, std::vector<double> medians, std::uint64_t seed) {
    return make_run(id, {make_segmented_scenario("mlp", Precision::fp32, 64, medians, 10, 0.01, seed)});
  };
  const auto old_dir = write("old", run_with("old", {10.0, 10.6, 9.7, 10.3, 10.1, 9.9}, 1));
  const auto drift_dir = write("drift", run_with("drift", {10.4, 11.0, 10.2, 10.9, 10.3, 10.8}, 2));
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, drift_dir}), 0) << out_.str();
  const auto slow_dir = write("slow", run_with("slow", {12.0, 12.6, 11.8, 12.4, 12.1, 12.3}, 3));
  EXPECT_EQ(compare({"--fail-on-regression", "5", old_dir, slow_dir}), 1) << out_.str();
}

// Every scenario slower by the same amount is what a drifting machine looks like: the table
// says so.
TEST_F(CompareCommand, ACommonShiftOfAllScenariosIsPointedOut) {
  auto run_at = [&](const std::string& id, double factor, std::uint64_t seed) {
    return make_run(id, {make_scenario("mlp", Precision::fp32, 32, jittered(0.010 * factor, 0.01, 40, seed)),
                         make_scenario("mlp", Precision::fp32, 64, jittered(0.018 * factor, 0.01, 40, seed + 1)),
                         make_scenario("cnn", Precision::fp32, 64, jittered(0.025 * factor, 0.01, 40, seed + 2))});
  };
  const auto a = write("a", run_at("a", 1.0, 1));
  const auto b = write("b", run_at("b", 1.2, 5));
  compare({a, b});
  EXPECT_NE(out_.str().find("note: 3 of 3 scenarios moved together"), std::string::npos) << out_.str();
  const auto c = write("c", run_at("c", 1.0, 9));
  compare({a, c});
  EXPECT_EQ(out_.str().find("moved together"), std::string::npos) << out_.str();
}

// Several workloads (issue 26): the table grouped by workload and a geomean per workload, never
// one over ResNet-50, ViT and GPT-2 together.
TEST_F(CompareCommand, SeveralWorkloadsAreGroupedWithAGeomeanEach) {
  const auto old_dir = write("old", tb::testing::three_workload_run("old"));
  const auto new_dir = write("new", tb::testing::three_workload_run("new", 1.25));  // gpt2 25% slower
  const auto json_path = (dir_ / "cmp.json").string();
  ASSERT_EQ(compare({"--json", json_path, old_dir, new_dir}), 0) << err_.str();
  const std::string table = out_.str();
  tb::test::expect_golden("compare_table_workloads.txt", table);
  for (const char* line : {"\nworkload resnet50:\nresnet50/fp32/w0/a1/b8 ", "\nworkload gpt2:\ngpt2/fp32/w0/a1/b8 "})
    EXPECT_NE(table.find(line), std::string::npos) << line << "\n" << table;
  EXPECT_TRUE(std::regex_search(
      table, std::regex(R"re(\ngeomean speedup gpt2: 0\.80[0-9] \[[0-9.]+, [0-9.]+\] \(2 scenarios\)\n)re")))
      << table;
  EXPECT_EQ(table.find("noisy; geomean speedup"), std::string::npos) << "no geomean over every workload\n" << table;
  const auto j = nlohmann::json::parse(read_file(json_path));
  EXPECT_FALSE(j.contains("geomean_speedup"));
  ASSERT_EQ(j.at("workloads").size(), 3u);
  EXPECT_EQ(j["workloads"][1]["workload"], "vit_b_16");
  EXPECT_EQ(j["scenarios"][0]["workload"], "resnet50");
}

TEST_F(CompareCommand, TableAndJsonMatchGolden) {
  auto old_run = two_scenario_run("old", 1.0, 1);
  auto new_run = two_scenario_run("new", 1.10, 2);
  old_run.scenarios.push_back(make_scenario("gpt", Precision::fp32, 8, jittered(0.05, 0.01, 20, 7)));
  new_run.scenarios.push_back(
      tb::testing::failed_scenario("vit", Precision::amp_bf16, 16, ScenarioStatus::skipped, "needs a GPU"));
  new_run.scenarios[1] = tb::testing::failed_scenario("cnn", Precision::fp32, 64, ScenarioStatus::oom, "out of memory");
  new_run.scenarios.push_back(make_scenario("mlp", Precision::fp32, 128, jittered(0.02, 0.3, 6, 9)));
  old_run.scenarios.push_back(make_scenario("mlp", Precision::fp32, 128, jittered(0.02, 0.3, 6, 8)));
  const auto old_dir = write("old", old_run);
  const auto new_dir = write("new", new_run);
  const auto json_path = (dir_ / "cmp.json").string();
  ASSERT_EQ(compare({"--fail-on-regression", "5", "--json", json_path, old_dir, new_dir}), 1) << err_.str();

  std::string table = out_.str();
  // Paths of the temporary directory are not part of the table; run ids are.
  tb::test::expect_golden("compare_table.txt", table);

  const auto j = nlohmann::json::parse(read_file(json_path));
  EXPECT_TRUE(j.at("regression").get<bool>());
  EXPECT_EQ(j.at("scenarios").size(), 3u);
  EXPECT_EQ(j.at("only_in_old"), nlohmann::json::array({"gpt/fp32/w0/a1/b8"}));
  EXPECT_EQ(j.at("only_in_new"), nlohmann::json::array({"vit/amp_bf16/w0/a1/b16"}));
}

}  // namespace
