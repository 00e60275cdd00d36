// results.json: what tb::save_results writes matches schema/results.schema.json (checked with
// python3 jsonschema through scripts/validate_results.py), load_results round-trips it, and bad
// files are rejected with the file and field named.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <cmath>

#include <trainbench/measure/scaling.hpp>
#include <trainbench/results/results.hpp>
#include <trainbench/support/error.hpp>

namespace tb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSource = TB_SOURCE_DIR;

class ResultsSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(TB_BINARY_DIR) / "test_results_schema.d" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

  static bool have_jsonschema() { return std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") == 0; }

  // Exit status of scripts/validate_results.py (0 valid, 1 invalid).
  int validate(const std::string& file) const {
    const std::string log = path("validate.log");
    const std::string cmd = "python3 '" + kSource + "/scripts/validate_results.py' '" + kSource +
                            "/schema/results.schema.json' '" + file + "' >'" + log + "' 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(log);
    last_log_.assign(std::istreambuf_iterator<char>(in), {});
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  fs::path dir_;
  mutable std::string last_log_;
};

// A run with every field set, including each documented "extra" section.
RunResult full_run() {
  ScenarioResult base;
  base.params.model = "resnet";
  base.params.dataset = "images";
  base.params.device = tb::DeviceKind::cpu;
  base.params.precision = Precision::fp32;
  base.params.workers = 2;
  base.params.accumulation = 4;
  base.params.batch = 16;
  base.params.effective_batch = 64;
  base.params.seed = 7;
  base.params.dataset_options = {{"samples", 1024}, {"image_size", 64}};
  base.params.model_options = {{"width", 32}};
  base.params.stopping = {2, 5, 30, 0.05, 5.0};
  base.params.profile.enabled = true;
  base.params.profile.kineto = true;
  base.params.test_delay_ms = 1.5;
  base.id = scenario_id(base.params);
  base.status = ScenarioStatus::ok;
  base.warmup_steps = 2;
  base.measured_steps = 5;
  base.stop_reason = "converged";
  base.step_times_s = {0.11, 0.1, 0.12, 0.105, 0.1};
  base.step_time_s = {5, 0.105, 0.107, 0.008, 0.1, 0.12, 0.1, 0.1, 0.11, 0.118, 0.1196, 0.1, 0.12};
  base.samples_per_s = 64 / 0.105;
  base.phases = {{"data_wait", 0.01, 0.011, 0.1},
                 {"h2d", 0.0, 0.0, 0.0},
                 {"forward", 0.03, 0.031, 0.3},
                 {"backward", 0.05, 0.05, 0.5},
                 {"optimizer", 0.01, 0.01, 0.1}};
  base.loss_curve = {2.3, 2.2, 2.1, 2.0, 1.9, 1.85, 1.8};
  base.loss_start = 2.3;
  base.loss_end = 1.8;
  base.memory = {0, 0, 0, 512 << 20};
  base.wall_s = 4.2;
  base.extra["comparison"] = {
      {"baseline_id", base.id}, {"speedup", 1.0}, {"ci_low", 1.0}, {"ci_high", 1.0}, {"verdict", "baseline"}};
  base.extra["profile"] = {{"traces", {{"host", "traces/s0.json"}, {"kineto", "traces/s0.pt.trace.json"}}},
                           {"window_steps", 3},
                           {"cupti", json::object()}};
  base.extra["capacity"] = {{"flops_per_sample", {{"forward", 1e8}, {"backward", 2e8}, {"total", 3e8}}},
                            {"achieved_flops_per_s", 1.8e11},
                            {"peak_flops_per_s", 1e12},
                            {"peak_source", "table (fallback)"},
                            {"mfu", 0.18},
                            {"projection",
                             {{"target_samples", 1e6},
                              {"time_s", 1640.0},
                              {"ci_low_s", 1600.0},
                              {"ci_high_s", 1700.0},
                              {"device_hours", 0.46},
                              {"cost", 1.2}}}};

  ScenarioResult amp = base;
  amp.params.precision = Precision::amp_bf16;
  amp.id = scenario_id(amp.params);
  amp.skipped_steps = 1;
  amp.final_loss_scale = 32768;
  amp.tokens_per_s = 0;
  amp.extra["comparison"] = {
      {"baseline_id", base.id}, {"speedup", 1.4}, {"ci_low", 1.3}, {"ci_high", 1.5}, {"verdict", "faster"}};
  amp.extra["loss_parity"] = {{"reference_id", base.id}, {"rel_drift", 0.01}, {"tolerance", 0.05}, {"ok", true}};

  ScenarioResult skipped;
  skipped.params = base.params;
  skipped.params.precision = Precision::amp_fp16;
  skipped.params.optimizer = tb::OptimizerKind::sgd;
  skipped.params.learning_rate = 0.01;
  skipped.params.momentum = 0.9;
  skipped.id = scenario_id(skipped.params);
  skipped.status = ScenarioStatus::skipped;
  skipped.message = "amp_fp16 needs a CUDA device";

  // Two ranks of the same scenario, through the reducer: extra.data_parallel and, once the
  // run's scaling analysis ran, the run's extra.scaling.
  ScenarioResult ranks2 = base;
  ranks2.params.world_size = 2;
  ranks2.id = scenario_id(ranks2.params);
  ranks2.samples_per_s = 128 / 0.11;
  ranks2.extra.erase("comparison");
  DataParallelSection dp;
  dp.backend = "gloo";
  dp.world_size = 2;
  dp.scaling = "weak";
  dp.global_batch = 128;
  dp.bucket_mb = 25;
  dp.buckets = 2;
  dp.gradient_bytes = 4 << 20;
  dp.exposed_comm_s = 0.004;
  dp.overlapped_comm_s = 0.003;
  dp.allreduce_s = 0.007;
  dp.algbw_bytes_per_s = (4 << 20) / 0.007;
  dp.busbw_bytes_per_s = dp.algbw_bytes_per_s;
  dp.latency_s = 5e-5;
  dp.ranks = {RankTiming{0, "h", 0.11, 64 / 0.11, 0.106, 0.004}, RankTiming{1, "h", 0.11, 64 / 0.11, 0.104, 0.006}};
  ranks2.data_parallel = dp;

  RunResult run;
  run.run_id = "20250101-120000-abcdef";
  run.matrix_name = "seed";
  run.matrix_file = "scenarios/seed.json";
  run.baseline_id = base.id;
  run.environment = {{"torch", "2.11.0"}, {"cpu", "test"}, {"git", {{"rev", "abc"}, {"dirty", false}}}};
  run.scenarios = {base, amp, skipped, ranks2};
  annotate_scaling(run);
  run.extra["summary"] = {{"geomean_speedup", 1.18},
                          {"geomean_ci_low", 1.1},
                          {"geomean_ci_high", 1.25},
                          {"ok", 2},
                          {"failed", 0},
                          {"skipped", 1},
                          {"oom", 0}};
  run.extra["capacity"] = {{"batch_search",
                            {{{"model", "resnet"},
                              {"precision", "fp32"},
                              {"max_batch", 256},
                              {"best_batch", 128},
                              {"best_samples_per_s", 700.0},
                              {"probes",
                               {{{"batch", 128}, {"fits", true}, {"samples_per_s", 700.0}, {"peak_bytes", 1 << 30}},
                                {{"batch", 512}, {"fits", false}}}}}}},
                           {"memory_fit",
                            {{{"model", "resnet"},
                              {"precision", "fp32"},
                              {"fixed_bytes", 1e8},
                              {"per_sample_bytes", 4e6},
                              {"r2", 0.99},
                              {"predicted_max_batch", 300}}}}};
  // Read once through the typed sections (results/sections.hpp), so that what is saved and
  // validated below is exactly what their writers produce.
  return json(run).get<RunResult>();
}

TEST_F(ResultsSchema, SavedRunValidates) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3 jsonschema module not available";
  save_results(full_run(), path("results.json"));
  EXPECT_EQ(validate(path("results.json")), 0) << last_log_;
}

TEST_F(ResultsSchema, DefaultConstructedScenarioValidates) {
  // What the runner writes for a scenario that failed before measuring anything.
  if (!have_jsonschema()) GTEST_SKIP() << "python3 jsonschema module not available";
  RunResult run;
  run.run_id = "r";
  ScenarioResult failed;
  failed.id = scenario_id(failed.params);
  failed.status = ScenarioStatus::failed;
  failed.message = "boom";
  run.scenarios = {failed};
  save_results(run, path("results.json"));
  EXPECT_EQ(validate(path("results.json")), 0) << last_log_;
}

TEST_F(ResultsSchema, ViolationsAreRejected) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3 jsonschema module not available";
  json j = full_run();
  json missing = j;
  missing.erase("scenarios");
  write("missing.json", missing.dump());
  EXPECT_EQ(validate(path("missing.json")), 1);
  EXPECT_NE(last_log_.find("'scenarios' is a required property"), std::string::npos) << last_log_;

  json bad_status = j;
  bad_status["scenarios"][0]["status"] = "exploded";  // "crashed" is a status since --isolate
  write("status.json", bad_status.dump());
  EXPECT_EQ(validate(path("status.json")), 1);
  EXPECT_NE(last_log_.find("scenarios[0].status"), std::string::npos) << last_log_;

  json bad_precision = j;
  bad_precision["scenarios"][1]["params"]["precision"] = "fp8";
  write("precision.json", bad_precision.dump());
  EXPECT_EQ(validate(path("precision.json")), 1);

  json bad_verdict = j;
  bad_verdict["scenarios"][1]["extra"]["comparison"]["verdict"] = "better";
  write("verdict.json", bad_verdict.dump());
  EXPECT_EQ(validate(path("verdict.json")), 1);

  // A timing sample is never missing: null (how nlohmann writes NaN) is rejected there.
  json nan_time = j;
  nan_time["scenarios"][0]["samples"]["step_time_s"][1] = nullptr;
  write("nan_time.json", nan_time.dump());
  EXPECT_EQ(validate(path("nan_time.json")), 1);

  // A diverged loss is a real outcome (fp16 without scaling): null is valid and reads as NaN.
  json nan_loss = j;
  nan_loss["scenarios"][0]["samples"]["loss"][2] = nullptr;
  write("nan.json", nan_loss.dump());
  EXPECT_EQ(validate(path("nan.json")), 0) << last_log_;
  const RunResult loaded = load_results(path("nan.json"));
  EXPECT_TRUE(std::isnan(loaded.scenarios[0].loss_curve[2]));
}

TEST_F(ResultsSchema, LoadRoundTripsEveryField) {
  const RunResult run = full_run();
  save_results(run, path("results.json"));
  const RunResult loaded = load_results(dir_.string());  // a directory reads DIR/results.json
  EXPECT_EQ(json(loaded), json(run));
  ASSERT_EQ(loaded.scenarios.size(), 4u);
  EXPECT_EQ(loaded.scenarios[2].status, ScenarioStatus::skipped);
  EXPECT_DOUBLE_EQ(loaded.scenarios[2].params.momentum, 0.9);
  EXPECT_EQ(loaded.scenarios[1].params.precision, Precision::amp_bf16);
  EXPECT_EQ(loaded.scenarios[0].step_times_s, run.scenarios[0].step_times_s);
  EXPECT_DOUBLE_EQ(loaded.scenarios[0].params.test_delay_ms, 1.5);
  ASSERT_TRUE(loaded.scaling && loaded.scenarios[3].data_parallel);
  EXPECT_EQ(loaded.scenarios[3].params.world_size, 2);
  EXPECT_EQ(loaded.scenarios[3].data_parallel->efficiency_reference_id, loaded.scenarios[0].id);
  EXPECT_TRUE(loaded.scaling->series.at(0).model);
}

void expect_input_error(const std::string& file, const std::string& field, const std::string& text) {
  try {
    load_results(file);
    FAIL() << "expected InputError for " << file;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST_F(ResultsSchema, LoadErrorsNameFileAndField) {
  write("malformed.json", "{\"schema_version\": 1,\n \"run_id\": }");
  expect_input_error(path("malformed.json"), "", "malformed JSON");

  json wrong_version = full_run();
  wrong_version["schema_version"] = 99;
  write("version.json", wrong_version.dump());
  expect_input_error(path("version.json"), "schema_version", "unsupported version 99");

  json no_version = full_run();
  no_version.erase("schema_version");
  write("noversion.json", no_version.dump());
  expect_input_error(path("noversion.json"), "schema_version", "missing");

  json no_scenarios = full_run();
  no_scenarios.erase("scenarios");
  write("noscenarios.json", no_scenarios.dump());
  expect_input_error(path("noscenarios.json"), "scenarios", "missing");

  expect_input_error(path("absent.json"), "", "cannot open");
}

// A field of the wrong type is named by its path in the file, not in the JSON library's words
// alone ("type must be number, but is string" said neither which scenario nor which field).
TEST_F(ResultsSchema, WrongTypedFieldsAreNamedByTheirPath) {
  struct Case {
    const char* pointer;  // where the wrong value goes
    json value;
    const char* field;
    const char* says;
  };
  const Case cases[] = {
      {"/scenarios/3/metrics/step_time_s/median", "fast", "scenarios[3].metrics.step_time_s.median",
       "must be a number, got \"fast\""},
      {"/scenarios/1/metrics/samples_per_s", json::array(), "scenarios[1].metrics.samples_per_s", "must be a number"},
      {"/scenarios/0/samples/step_time_s/2", "x", "scenarios[0].samples.step_time_s[2]", "must be a number"},
      {"/scenarios/0/samples/segments", json::array({{{"round", 0}}, {{"round", 1}, {"median_s", true}}}),
       "scenarios[0].samples.segments[1].median_s", "must be a number, got true"},
      {"/scenarios/0/metrics/phases/0/name", 5, "scenarios[0].metrics.phases[0].name", "must be a string"},
      {"/scenarios/2/params/batch", "64", "scenarios[2].params.batch", "must be an integer"},
      {"/scenarios/2/params/stopping/rounds", 1.5, "scenarios[2].params.stopping.rounds", "must be an integer"},
      {"/scenarios/1/status", "great", "scenarios[1].status", "unknown scenario status 'great'"},
      {"/scenarios/1/id", 7, "scenarios[1].id", "must be a string"},
      {"/scenarios/0/metrics/disturbance/contended", "yes", "scenarios[0].metrics.disturbance.contended",
       "must be true or false"},
      {"/matrix/name", 1, "matrix.name", "must be a string"},
      {"/run_id", nullptr, "run_id", "must be a string"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.pointer);
    json run = full_run();
    run[json::json_pointer(c.pointer)] = c.value;
    write("wrong.json", run.dump());
    expect_input_error(path("wrong.json"), c.field, c.says);
  }
}

// An MFU above 100% keeps its number and gains capacity.mfu_error; extra.peaks carries the peak's
// spread (trainbench/capacity/torch/peak_flops.hpp). Both validate, and their types are checked.
TEST_F(ResultsSchema, MfuErrorAndPeakSpreadValidate) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3 jsonschema module not available";
  json j = full_run();
  j["scenarios"][1]["extra"]["capacity"]["mfu"] = 1.0731;
  j["scenarios"][1]["extra"]["capacity"]["mfu_error"] = "MFU 107.31% exceeds 100%: a measurement error";
  const json size = {
      {"n", 1024},   {"median_flops_per_s", 3.5e11}, {"min_flops_per_s", 3.1e11}, {"max_flops_per_s", 3.6e11},
      {"blocks", 5}, {"matmuls_per_block", 2}};
  j["extra"]["peaks"] = json::array({{{"device", "cpu"},
                                      {"precision", "amp_bf16"},
                                      {"peak",
                                       {{"flops_per_s", 3.5e11},
                                        {"n", 1024},
                                        {"dtype", "bfloat16"},
                                        {"device", "cpu"},
                                        {"median_s", 0.0061},
                                        {"samples", 5},
                                        {"matmuls_per_sample", 2},
                                        {"threads", 2},
                                        {"min_flops_per_s", 3.1e11},
                                        {"max_flops_per_s", 3.6e11},
                                        {"rel_spread", 0.14},
                                        {"sizes", json::array({size})}}}}});
  write("mfu.json", j.dump());
  EXPECT_EQ(validate(path("mfu.json")), 0) << last_log_;

  json bad_error = j;
  bad_error["scenarios"][1]["extra"]["capacity"]["mfu_error"] = true;
  write("bad_error.json", bad_error.dump());
  EXPECT_EQ(validate(path("bad_error.json")), 1);

  json bad_spread = j;
  bad_spread["extra"]["peaks"][0]["peak"]["rel_spread"] = -0.1;
  write("bad_spread.json", bad_spread.dump());
  EXPECT_EQ(validate(path("bad_spread.json")), 1);

  json no_blocks = j;
  no_blocks["extra"]["peaks"][0]["peak"]["sizes"][0].erase("blocks");
  write("no_blocks.json", no_blocks.dump());
  EXPECT_EQ(validate(path("no_blocks.json")), 1);
}

}  // namespace
}  // namespace tb
