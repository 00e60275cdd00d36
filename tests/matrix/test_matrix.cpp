// Matrix files: expansion order and counts, exclusions, effective-batch math, baseline choice,
// --set overrides, the `list` table (golden), the shipped matrices, and every bad input.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/matrix_listing.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/golden_file.hpp"
#include "tests/helpers/matrix_catalog.hpp"

namespace tb {
namespace {

using nlohmann::json;

const std::string kSource = TB_SOURCE_DIR;

MatrixSpec parse(const json& j, const MatrixParseOptions& o = full_catalog()) {
  return parse_matrix(j, "inline.json", o);
}

std::vector<std::string> ids(const std::vector<ScenarioParams>& scenarios) {
  std::vector<std::string> out;
  for (const auto& s : scenarios) out.push_back(scenario_id(s));
  return out;
}

// Relative to the source tree, so messages and listings do not depend on the checkout path.
MatrixSpec load_repo_matrix(const std::string& relative, const MatrixParseOptions& o = full_catalog()) {
  return parse_matrix(read_matrix_json(kSource + "/" + relative), relative, o);
}

TEST(MatrixExpand, CartesianProductInDocumentedOrder) {
  const auto spec = parse({{"name", "m"},
                           {"axes",
                            {{"model", {"mlp", "transformer"}},
                             {"precision", {"fp32", "amp_bf16"}},
                             {"workers", {0, 2}},
                             {"accumulation", {1, 4}},
                             {"batch", {16, 32}}}}});
  const auto scenarios = expand(spec);
  ASSERT_EQ(scenarios.size(), 32u);
  // batch varies fastest, then accumulation, workers, precision, model.
  EXPECT_EQ(scenario_id(scenarios[0]), "mlp/fp32/w0/a1/b16");
  EXPECT_EQ(scenario_id(scenarios[1]), "mlp/fp32/w0/a1/b32");
  EXPECT_EQ(scenario_id(scenarios[2]), "mlp/fp32/w0/a4/b16");
  EXPECT_EQ(scenario_id(scenarios[4]), "mlp/fp32/w2/a1/b16");
  EXPECT_EQ(scenario_id(scenarios[8]), "mlp/amp_bf16/w0/a1/b16");
  EXPECT_EQ(scenario_id(scenarios[16]), "transformer/fp32/w0/a1/b16");
  EXPECT_EQ(scenarios[3].effective_batch, 128);
  EXPECT_EQ(scenarios[3].batch, 32);
}

TEST(MatrixExpand, DefaultsAndScalarAxes) {
  const auto spec = parse({{"name", "m"}, {"model", "resnet"}, {"axes", {{"workers", 2}}}});
  const auto scenarios = expand(spec);
  ASSERT_EQ(scenarios.size(), 1u);
  EXPECT_EQ(scenarios[0].model, "resnet");
  EXPECT_EQ(scenarios[0].precision, Precision::fp32);
  EXPECT_EQ(scenarios[0].workers, 2);
  EXPECT_EQ(scenarios[0].accumulation, 1);
  EXPECT_EQ(scenarios[0].batch, 32);
  EXPECT_EQ(scenarios[0].device, DeviceKind::cpu);
  EXPECT_EQ(spec.device_request, "auto");
}

TEST(MatrixExpand, PassesThroughNonAxisFields) {
  const auto spec =
      parse({{"name", "m"},
             {"dataset", "tokens"},
             {"dataset_options", {{"samples", 128}}},
             {"model_options", {{"hidden", 64}}},
             {"optimizer", {{"name", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}}},
             {"seed", 7},
             {"steps", {{"warmup", 1}, {"min", 2}, {"max", 3}, {"target_rel_ci", 0.1}, {"time_budget_s", 1.5}}},
             {"profile", {{"enabled", true}, {"window", 2}, {"kineto", true}}},
             {"contention", {{"other_cpu_cores", 1.5}}},
             {"test_delay_ms", 2.5}});
  const auto p = expand(spec).at(0);
  EXPECT_EQ(p.dataset, "tokens");
  EXPECT_EQ(p.dataset_options["samples"], 128);
  EXPECT_EQ(p.model_options["hidden"], 64);
  EXPECT_EQ(p.optimizer, OptimizerKind::sgd);
  EXPECT_DOUBLE_EQ(p.learning_rate, 0.05);
  EXPECT_DOUBLE_EQ(p.momentum, 0.9);
  EXPECT_EQ(p.seed, 7u);
  EXPECT_EQ(p.stopping.warmup_steps, 1);
  EXPECT_EQ(p.stopping.min_steps, 2);
  EXPECT_EQ(p.stopping.max_steps, 3);
  EXPECT_DOUBLE_EQ(p.stopping.target_rel_ci, 0.1);
  EXPECT_DOUBLE_EQ(p.stopping.time_budget_s, 1.5);
  EXPECT_TRUE(p.profile.enabled);
  EXPECT_EQ(p.profile.window, 2);
  EXPECT_TRUE(p.profile.kineto);
  EXPECT_TRUE(p.profile.host_trace);  // default kept
  EXPECT_DOUBLE_EQ(p.test_delay_ms, 2.5);
  EXPECT_DOUBLE_EQ(p.contention.other_cpu_cores, 1.5);
  EXPECT_DOUBLE_EQ(p.contention.steal_fraction, ContentionThresholds::kDefaultStealFraction);
}

TEST(MatrixExpand, ModelOverridesApplyToTheirModelOnly) {
  const auto scenarios =
      expand(parse({{"name", "m"},
                    {"dataset_options", {{"samples", 64}}},
                    {"axes", {{"model", {"mlp", "transformer"}}}},
                    {"model_overrides",
                     {{"transformer", {{"dataset_options", {{"seq_len", 8}}}, {"model_options", {{"layers", 1}}}}}}}}));
  ASSERT_EQ(scenarios.size(), 2u);
  EXPECT_EQ(scenarios[0].dataset_options, json({{"samples", 64}}));
  EXPECT_EQ(scenarios[0].model_options, json::object());
  EXPECT_EQ(scenarios[1].dataset_options, json({{"samples", 64}, {"seq_len", 8}}));
  EXPECT_EQ(scenarios[1].model_options, json({{"layers", 1}}));
}

// Gates apply in order: the later matching rule replaces the metrics it names, keeps the rest.
TEST(MatrixExpand, GatesResolvePerScenarioInOrder) {
  const auto spec = parse(json::parse(R"({"name": "g", "axes": {"precision": ["fp32", "amp_bf16"], "batch": [32, 64]},
    "gates": [{"step_time_pct": 5, "peak_memory_pct": 10},
              {"match": {"precision": "amp_bf16"}, "step_time_pct": 8, "loss_drift": 0.05},
              {"match": {"precision": "amp_bf16", "batch": [64]}, "peak_memory_pct": 2}]})"));
  const auto scenarios = expand(spec);
  ASSERT_EQ(scenarios.size(), 4u);
  const auto find = [&](const std::string& precision, int batch) {
    for (const auto& p : scenarios)
      if (to_string(p.precision) == precision && p.batch == batch) return p.gates;
    ADD_FAILURE() << precision << " " << batch;
    return GateThresholds{};
  };
  const auto fp32 = find("fp32", 32);
  EXPECT_EQ(fp32.step_time_pct, 5.0);
  EXPECT_EQ(fp32.peak_memory_pct, 10.0);
  EXPECT_FALSE(fp32.loss_drift.has_value());
  const auto bf16_32 = find("amp_bf16", 32);
  EXPECT_EQ(bf16_32.step_time_pct, 8.0);
  EXPECT_EQ(bf16_32.peak_memory_pct, 10.0);
  EXPECT_EQ(bf16_32.loss_drift, 0.05);
  EXPECT_EQ(find("amp_bf16", 64).peak_memory_pct, 2.0);
  // In results.json's params, and read back; a scenario without gates writes none.
  const json written = scenarios[0];
  EXPECT_EQ(written.at("gates").at("step_time_pct"), 5.0);
  EXPECT_EQ(written.get<ScenarioParams>().gates.peak_memory_pct, 10.0);
  const json plain = expand(parse(json::parse(R"({"name": "p"})"))).front();
  EXPECT_FALSE(plain.contains("gates"));
  // A rule made empty by --set (the axis it selects on changed) is not an error.
  EXPECT_NO_THROW(parse_matrix(apply_set_overrides(json::parse(R"({"name": "g", "axes": {"batch": [32]},
    "gates": [{"match": {"batch": 32}, "step_time_pct": 3}]})"),
                                                   {"axes.batch=[16]"}),
                               "inline.json", full_catalog(), {"axes.batch=[16]"}));
}

// Every combination once per configuration; a rule's `match` picks combinations, its `set`
// gives them values; what a configuration makes equal is measured once; a rule for another
// device is left out with a note; the name ends the id and is part of the key.
TEST(MatrixExpand, NamedConfigurationsSetTheirAxesOnTheCombinations) {
  const auto spec = parse(json::parse(R"({"name": "c", "device": "cpu", "model": "mlp",
    "axes": {"model": ["mlp", "resnet"], "precision": ["fp32", "amp_bf16"], "batch": [16, 32]},
    "configurations": [
      {"name": "plain"},
      {"name": "tuned", "set": {"precision": "amp_bf16", "optimizer_impl": "fused"}},
      {"name": "tuned", "match": {"model": "resnet"}, "set": {"memory_format": "channels_last"}},
      {"name": "tuned", "device": "cuda", "set": {"cuda_graphs": true}}]})"));
  const auto scenarios = expand(spec);
  // plain: 2 models x 2 precisions x 2 batches; tuned: its precision makes fp32 and amp_bf16
  // equal, so 2 models x 2 batches.
  ASSERT_EQ(scenarios.size(), 8u + 4u) << ::testing::PrintToString(ids(scenarios));
  EXPECT_EQ(scenario_id(scenarios[0]), "mlp/fp32/w0/a1/b16/plain");
  std::vector<std::string> tuned;
  for (const auto& p : scenarios)
    if (p.configuration == "tuned") {
      tuned.push_back(scenario_id(p));
      EXPECT_EQ(p.precision, Precision::amp_bf16);
      EXPECT_EQ(p.optimizer_impl, OptimizerImpl::fused);
      EXPECT_FALSE(p.cuda_graphs) << "a cuda rule is left out on a cpu";
      EXPECT_EQ(p.memory_format == MemoryFormatKind::channels_last, p.model == "resnet") << scenario_id(p);
    }
  EXPECT_EQ(tuned.size(), 4u);
  for (const auto& id : tuned) {
    EXPECT_EQ(id.substr(id.size() - 6), "/tuned") << id;
    EXPECT_NE(id.find("/fused"), std::string::npos) << id;
    EXPECT_EQ(id.find("channels_last") != std::string::npos, id.rfind("resnet", 0) == 0) << id;
  }
  EXPECT_EQ(scenario_key(scenarios[0]).at("configuration"), "plain");
  ASSERT_EQ(spec.baseline_notes.size(), 1u);
  EXPECT_NE(spec.baseline_notes[0].find("configuration tuned: configurations[3]"), std::string::npos);
  EXPECT_NE(spec.baseline_notes[0].find("is for cuda, left out on cpu"), std::string::npos);
  // Read back from results.json's params; a matrix without configurations writes none.
  const json written = scenarios.back();
  EXPECT_EQ(written.get<ScenarioParams>().configuration, scenarios.back().configuration);
  EXPECT_FALSE(json(expand(parse(json::parse(R"({"name": "p"})"))).front()).contains("configuration"));
}

TEST(MatrixExpand, SgdWithoutLrGetsSgdDefault) {
  EXPECT_DOUBLE_EQ(expand(parse({{"name", "m"}, {"optimizer", "sgd"}}))[0].learning_rate, 0.01);
  EXPECT_DOUBLE_EQ(expand(parse({{"name", "m"}, {"optimizer", "adam"}}))[0].learning_rate, 1e-3);
}

TEST(MatrixExpand, DeviceAutoResolvesFromAvailability) {
  const json j = {{"name", "m"}, {"device", "auto"}};
  EXPECT_EQ(expand(parse(j, full_catalog(false)))[0].device, DeviceKind::cpu);
  EXPECT_EQ(expand(parse(j, full_catalog(true)))[0].device, DeviceKind::cuda);
  EXPECT_EQ(expand(parse({{"name", "m"}, {"device", "cuda"}}, full_catalog(true)))[0].device, DeviceKind::cuda);
  EXPECT_EQ(expand(parse({{"name", "m"}, {"device", "cpu"}}, full_catalog(true)))[0].device, DeviceKind::cpu);
}

TEST(MatrixExpand, ExclusionsDropMatchingCombos) {
  const auto spec =
      parse({{"name", "m"},
             {"axes", {{"precision", {"fp32", "amp_fp16"}}, {"workers", {0, 2, 4}}}},
             {"exclude", {{{"precision", "amp_fp16"}, {"workers", 4}}, {{"workers", {2}}, {"precision", {"fp32"}}}}}});
  EXPECT_EQ(ids(expand(spec)), (std::vector<std::string>{"mlp/fp32/w0/a1/b32", "mlp/fp32/w4/a1/b32",
                                                         "mlp/amp_fp16/w0/a1/b32", "mlp/amp_fp16/w2/a1/b32"}));
}

// Data-parallel axes: world_size varies after batch; "always" is only world size 1's twin; strong
// scaling splits the matrix's (global) batch over the ranks, and ids carry /r2 and /strong.
TEST(MatrixExpand, WorldSizeReducerAndScaling) {
  const auto weak =
      parse({{"name", "m"}, {"axes", {{"batch", {32, 64}}, {"world_size", {1, 2}}, {"reducer", {"auto", "always"}}}}});
  EXPECT_EQ(
      ids(expand(weak)),
      (std::vector<std::string>{"mlp/fp32/w0/a1/b32", "mlp/fp32/w0/a1/b32/reducer-always", "mlp/fp32/w0/a1/b32/r2",
                                "mlp/fp32/w0/a1/b64", "mlp/fp32/w0/a1/b64/reducer-always", "mlp/fp32/w0/a1/b64/r2"}));
  const auto two = expand(weak)[2];
  EXPECT_EQ(two.batch, 32);
  EXPECT_EQ(global_batch(two), 64);
  const auto strong =
      parse({{"name", "m"}, {"scaling", "strong"}, {"axes", {{"batch", 64}, {"world_size", {1, 2, 4}}}}});
  const auto s = expand(strong);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(ids(s), (std::vector<std::string>{"mlp/fp32/w0/a1/b64/strong", "mlp/fp32/w0/a1/b32/r2/strong",
                                              "mlp/fp32/w0/a1/b16/r4/strong"}));
  for (const auto& p : s) EXPECT_EQ(global_batch(p), 64) << scenario_id(p);
  // A selector names the batch as the matrix writes it: the global one.
  EXPECT_EQ(axis_value(strong, s[2], "batch"), 64);
  const auto strong_excluded = parse({{"name", "m"},
                                      {"scaling", "strong"},
                                      {"axes", {{"batch", 64}, {"world_size", {1, 2}}}},
                                      {"exclude", json::array({{{"batch", 64}, {"world_size", 2}}})}});
  EXPECT_EQ(expand(strong_excluded).size(), 1u);
}

TEST(MatrixExpand, HoldEffectiveBatchDividesByAccumulation) {
  const auto spec = parse(
      {{"name", "m"}, {"hold_effective_batch", true}, {"axes", {{"accumulation", {1, 2, 4}}, {"batch", {64, 128}}}}});
  const auto scenarios = expand(spec);
  ASSERT_EQ(scenarios.size(), 6u);
  for (const auto& s : scenarios) EXPECT_EQ(s.batch * s.accumulation, s.effective_batch);
  EXPECT_EQ(scenarios[4].accumulation, 4);
  EXPECT_EQ(scenarios[4].effective_batch, 64);
  EXPECT_EQ(scenarios[4].batch, 16);
  EXPECT_EQ(scenarios[5].batch, 32);
}

TEST(MatrixExpand, IndivisibleComboIsFineWhenExcluded) {
  const auto spec = parse({{"name", "m"},
                           {"hold_effective_batch", true},
                           {"axes", {{"accumulation", {1, 3}}, {"batch", {64, 96}}}},
                           {"exclude", {{{"accumulation", 3}, {"batch", 64}}}}});
  EXPECT_EQ(ids(expand(spec)),
            (std::vector<std::string>{"mlp/fp32/w0/a1/b64", "mlp/fp32/w0/a1/b96", "mlp/fp32/w0/a3/b32"}));
}

TEST(MatrixExpand, BatchMaxMeansCapacitySearch) {
  const auto spec = parse({{"name", "m"}, {"axes", {{"batch", "max"}, {"precision", {"fp32", "amp_bf16"}}}}});
  EXPECT_TRUE(spec.batch_search);
  EXPECT_TRUE(spec.batch.empty());
  EXPECT_EQ(expand(spec).size(), 2u);  // one placeholder batch per remaining combo

  const auto via_capacity = parse({{"name", "m"}, {"capacity", {{"batch", "max"}, {"target", "1e6 samples"}}}});
  EXPECT_TRUE(via_capacity.batch_search);
  EXPECT_EQ(via_capacity.capacity["target"], "1e6 samples");
}

TEST(MatrixBaseline, DefaultIsFp32NoWorkersNoAccumulationFirstBatch) {
  const auto spec =
      parse({{"name", "m"}, {"axes", {{"precision", {"amp_bf16", "fp32"}}, {"workers", {2, 0}}, {"batch", {64, 32}}}}});
  const auto scenarios = expand(spec);
  const auto choice = choose_baseline(spec, scenarios);
  EXPECT_TRUE(choice.matched);
  EXPECT_EQ(scenario_id(scenarios[choice.index]), "mlp/fp32/w0/a1/b64");
}

TEST(MatrixBaseline, ExplicitBaselineAndHoldEffectiveBatch) {
  const auto spec = parse({{"name", "m"},
                           {"hold_effective_batch", true},
                           {"axes", {{"accumulation", {1, 4}}, {"batch", {64}}, {"workers", {0, 2}}}},
                           {"baseline", {{"workers", 2}, {"accumulation", 4}, {"batch", 64}}}});
  const auto scenarios = expand(spec);
  EXPECT_EQ(scenario_id(scenarios[choose_baseline(spec, scenarios).index]), "mlp/fp32/w2/a4/b16");
}

TEST(MatrixBaseline, AnAxisWithoutItsDefaultTakesItsFirstValue) {
  // No workers 0: the default baseline takes the axis's first value, at fp32 as ever.
  const auto spec = parse({{"name", "m"}, {"axes", {{"precision", {"amp_bf16", "fp32"}}, {"workers", {4, 2}}}}});
  const auto scenarios = expand(spec);
  const auto choice = choose_baseline(spec, scenarios);
  EXPECT_TRUE(choice.matched);
  EXPECT_EQ(scenario_id(scenarios[choice.index]), "mlp/fp32/w4/a1/b32");  // the default batch
}

TEST(MatrixBaseline, DefaultsExcludedFallBackToFirstScenario) {
  const auto spec = parse({{"name", "m"},
                           {"axes", {{"precision", {"fp32", "amp_bf16"}}, {"workers", {0, 2}}}},
                           {"exclude", {{{"precision", "fp32"}, {"workers", 0}}}}});
  const auto scenarios = expand(spec);
  const auto choice = choose_baseline(spec, scenarios);
  EXPECT_FALSE(choice.matched);
  EXPECT_EQ(choice.index, 0u);
  EXPECT_NE(format_scenario_list(spec, scenarios).find("no scenario matches"), std::string::npos);
}

// A written baseline whose value --set took off its axis: the key drops out of the baseline and a
// line says so; one that still matches nothing is refused, naming the axis (issue 26).
TEST(MatrixBaseline, OverriddenAxisDropsOutOfTheBaselineOtherwiseRefused) {
  const json matrix = {{"name", "m"},
                       {"axes", {{"precision", {"fp32", "amp_bf16"}}, {"batch", {8, 32, 128}}}},
                       {"baseline", {{"precision", "fp32"}, {"batch", 32}}}};
  struct Case {
    const char* name;
    std::vector<std::string> sets;
    const char* baseline;  // the chosen baseline; nullptr: refused
    const char* says;      // the note, or the refusal
  };
  const Case cases[] = {
      {"no override", {}, "mlp/fp32/w0/a1/b32", nullptr},
      {"--set keeps the value", {"axes.batch=[1,32]"}, "mlp/fp32/w0/a1/b32", nullptr},
      {"--set drops it",
       {"axes.batch=1"},
       "mlp/fp32/w0/a1/b1",
       "baseline: batch 32 dropped out: --set changed axes.batch to 1"},
      {"--set an element",
       {"axes.batch.1=64"},
       "mlp/fp32/w0/a1/b8",
       "baseline: batch 32 dropped out: --set changed axes.batch to 8, 64, 128"},
      {"--set every axis", {"axes={\"batch\": [16]}"}, "mlp/fp32/w0/a1/b16", "baseline: batch 32 dropped out"},
      {"--set another axis",
       {"axes.precision=[\"fp32\"]", "baseline.batch=64"},
       nullptr,
       "baseline.batch: 64 matches no scenario: axes.batch has 8, 32, 128"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const json j = apply_set_overrides(matrix, c.sets);
    if (c.baseline == nullptr) {
      try {
        parse_matrix(j, "inline.json", full_catalog(), c.sets);
        ADD_FAILURE() << "expected InputError";
      } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "baseline.batch");
        EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      }
      continue;
    }
    const auto spec = parse_matrix(j, "inline.json", full_catalog(), c.sets);
    const auto scenarios = expand(spec);
    const auto choice = choose_baseline(spec, scenarios);
    EXPECT_TRUE(choice.matched);
    EXPECT_EQ(scenario_id(scenarios[choice.index]), c.baseline);
    if (c.says == nullptr) {
      EXPECT_TRUE(spec.baseline_notes.empty());
      continue;
    }
    ASSERT_EQ(spec.baseline_notes.size(), 1u);
    EXPECT_NE(spec.baseline_notes[0].find(c.says), std::string::npos) << spec.baseline_notes[0];
    EXPECT_NE(format_scenario_list(spec, scenarios).find(spec.baseline_notes[0]), std::string::npos);
  }
}

TEST(MatrixOverrides, SetValuesBeforeParsing) {
  json j = {{"name", "m"}, {"steps", {{"max", 100}}}, {"axes", {{"workers", {0}}}}};
  j = apply_set_overrides(
      j, {"steps.max=20", "axes.workers=[0,2]", "device=cpu", "profile.enabled=true", "axes.batch.0=8"});
  EXPECT_EQ(j["steps"]["max"], 20);
  EXPECT_EQ(j["axes"]["workers"], json({0, 2}));
  EXPECT_EQ(j["device"], "cpu");  // bare words are strings
  EXPECT_EQ(j["profile"]["enabled"], true);
  const auto spec = parse(j);
  EXPECT_EQ(spec.defaults.stopping.max_steps, 20);
  EXPECT_EQ(spec.workers, (std::vector<int>{0, 2}));
  EXPECT_EQ(spec.batch, (std::vector<int>{8}));
}

TEST(MatrixOverrides, MalformedOverridesNameTheKey) {
  const json j = {{"name", "m"}, {"seed", 1}};
  try {
    apply_set_overrides(j, {"steps.max"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "--set");
    EXPECT_EQ(e.field(), "steps.max");
  }
  try {
    apply_set_overrides(j, {"seed.value=3"});  // seed is a number, not an object
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "--set");
    EXPECT_EQ(e.field(), "seed.value");
  }
  EXPECT_THROW(apply_set_overrides(j, {"steps..max=3"}), InputError);
}

TEST(MatrixOverrides, LoadMatrixAppliesOverrides) {
  const auto spec = load_matrix(kSource + "/scenarios/quick.json", full_catalog(), {"axes.workers=0"});
  EXPECT_EQ(expand(spec).size(), 4u);
}

TEST(MatrixCatalog, EmptyCatalogSkipsNameValidation) {
  const auto spec = parse({{"name", "m"}, {"model", "my_custom_net"}, {"dataset", "my_data"}}, MatrixParseOptions{});
  EXPECT_EQ(expand(spec)[0].model, "my_custom_net");
  EXPECT_EQ(expand(spec)[0].dataset, "my_data");
}

TEST(MatrixFiles, QuickMatrixParses) {
  const auto spec = load_repo_matrix("scenarios/quick.json");
  const auto scenarios = expand(spec);
  EXPECT_EQ(spec.name, "quick");
  EXPECT_EQ(scenarios.size(), 8u);
  EXPECT_EQ(scenario_id(scenarios[choose_baseline(spec, scenarios).index]), "mlp@synthetic/fp32/w0/a1/b64");
  for (const auto& s : scenarios) {
    EXPECT_LE(s.stopping.max_steps, 400);
    EXPECT_EQ(s.stopping.rounds, 8);
    EXPECT_TRUE(s.stopping.interleave);
  }
}

TEST(MatrixFiles, SeedMatrixParses) {
  const auto spec = load_repo_matrix("scenarios/seed.json");
  const auto scenarios = expand(spec);
  EXPECT_EQ(spec.name, "seed");
  EXPECT_FALSE(spec.description.empty());
  EXPECT_EQ(scenarios.size(), 12u);
  for (const auto& s : scenarios) {
    EXPECT_EQ(s.model, "resnet");
    EXPECT_EQ(s.dataset, "images");
    EXPECT_EQ(s.effective_batch, 64);  // hold_effective_batch: accumulation 4 -> micro-batch 16
    EXPECT_EQ(s.batch * s.accumulation, 64);
    EXPECT_TRUE(s.profile.enabled);
    EXPECT_TRUE(s.profile.kineto);
    EXPECT_EQ(s.profile.window, 3);
  }
  EXPECT_EQ(scenario_id(scenarios[choose_baseline(spec, scenarios).index]), "resnet@images/fp32/w0/a1/b64");
}

// scripts/validate_results.py checks any file against a schema; use it for the matrix schema too.
bool have_python_jsonschema() { return std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") == 0; }

int validate_with_schema(const std::string& schema, const std::string& file) {
  const std::string cmd =
      "python3 '" + kSource + "/scripts/validate_results.py' '" + schema + "' '" + file + "' >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(MatrixFiles, ShippedMatricesMatchTheMatrixSchema) {
  if (!have_python_jsonschema()) GTEST_SKIP() << "python3 jsonschema module not available";
  const std::string schema = kSource + "/schema/matrix.schema.json";
  EXPECT_EQ(validate_with_schema(schema, kSource + "/scenarios/quick.json"), 0);
  EXPECT_EQ(validate_with_schema(schema, kSource + "/scenarios/seed.json"), 0);
  EXPECT_EQ(validate_with_schema(schema, kSource + "/tests/fixtures/matrices/negative_workers.json"), 1);
  // The schema carries the harness's ranges.
  for (const char* fixture : {"steps_max_too_large", "warmup_too_large", "seed_above_int64", "workers_too_many",
                              "batch_too_large", "delay_too_large", "time_budget_too_large"})
    EXPECT_EQ(validate_with_schema(schema, kSource + "/tests/fixtures/matrices/" + fixture + ".json"), 1) << fixture;
}

// ------------------------------------------------------------------ the user's Python loop

MatrixSpec parse_at(const json& j, const std::string& file) { return parse_matrix(j, file, full_catalog()); }

TEST(PythonLoopMatrix, TheUsersModelFileCompileAndOwnAxes) {
  const std::string file = kSource + "/tests/fixtures/matrices/inline.json";
  const auto spec = parse_at({{"name", "m"},
                              {"loop", "python"},
                              {"model", "small_cnn"},  // the user's name: no registry to check it against
                              {"python", {{"file", "../python-loop/fake_step_worker.py"}, {"function", "build_cnn"}}},
                              {"axes", {{"compile", {"eager", "default"}}, {"user", {{"fused_loss", {false, true}}}}}}},
                             file);
  EXPECT_EQ(spec.defaults.python.file, kSource + "/tests/fixtures/python-loop/fake_step_worker.py")
      << "relative to the matrix's folder, made absolute";
  EXPECT_EQ(spec.defaults.python.function, "build_cnn");
  const auto scenarios = expand(spec);
  // The user's axes vary fastest, after compile.
  EXPECT_EQ(ids(scenarios),
            (std::vector<std::string>{"small_cnn/fp32/w0/a1/b32/python/fused_loss=false",
                                      "small_cnn/fp32/w0/a1/b32/python/fused_loss=true",
                                      "small_cnn/fp32/w0/a1/b32/python/compile-default/fused_loss=false",
                                      "small_cnn/fp32/w0/a1/b32/python/compile-default/fused_loss=true"}));
  EXPECT_EQ(scenarios[3].user_axes, json({{"fused_loss", true}}));
  EXPECT_EQ(scenarios[3].compile, CompileMode::default_mode);
  EXPECT_EQ(scenario_key(scenarios[3]).value("loop", ""), "python");
  EXPECT_NE(scenario_key(scenarios[3]), scenario_key(scenarios[2])) << "the user's axes are part of the key";
}

TEST(PythonLoopMatrix, TheCppLoopsKeysAndIdsDoNotChange) {
  // Scenarios measured before loops existed must still match in compare and the history.
  const auto plain = expand(parse({{"name", "m"}}));
  const auto explicit_cpp = expand(parse({{"name", "m"}, {"loop", "cpp"}, {"axes", {{"compile", "eager"}}}}));
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(explicit_cpp.size(), 1u);
  EXPECT_EQ(scenario_key(plain[0]), scenario_key(explicit_cpp[0]));
  EXPECT_FALSE(scenario_key(plain[0]).contains("loop"));
  EXPECT_FALSE(scenario_key(plain[0]).contains("compile"));
  EXPECT_EQ(scenario_id(plain[0]), "mlp/fp32/w0/a1/b32");
}

TEST(PythonLoopMatrix, OneModelInBothLoops) {
  const auto spec = parse_at({{"name", "m"},
                              {"python", {{"file", "../python-loop/fake_step_worker.py"}}},
                              {"axes", {{"loop", {"cpp", "python"}}, {"compile", {"eager", "default"}}}},
                              {"exclude", {{{"loop", "cpp"}, {"compile", "default"}}}}},
                             kSource + "/tests/fixtures/matrices/inline.json");
  EXPECT_EQ(ids(expand(spec)), (std::vector<std::string>{"mlp/fp32/w0/a1/b32", "mlp/fp32/w0/a1/b32/python",
                                                         "mlp/fp32/w0/a1/b32/python/compile-default"}));
}

// ------------------------------------------------------------------ listing (golden)

TEST(MatrixListing, SeedMatrixTable) {
  const auto spec = load_repo_matrix("scenarios/seed.json");
  const std::string text = format_scenario_list(spec, expand(spec));
  EXPECT_NE(text.find("* "), std::string::npos);
  EXPECT_NE(text.find("scenarios: 12"), std::string::npos);
  tb::test::expect_golden("matrix_list_seed.txt", text);
}

TEST(MatrixListing, QuickMatrixTable) {
  const auto spec = load_repo_matrix("scenarios/quick.json");
  tb::test::expect_golden("matrix_list_quick.txt", format_scenario_list(spec, expand(spec)));
}

// ------------------------------------------------------------------ bad inputs

struct BadInput {
  std::string fixture;  // tests/fixtures/matrices/<fixture>.json
  std::string field;    // expected InputError::field()
  std::string message;  // expected part of the message
};

void PrintTo(const BadInput& b, std::ostream* os) { *os << b.fixture; }

class MatrixBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(MatrixBadInput, NamesFileAndField) {
  const BadInput& bad = GetParam();
  const std::string path = kSource + "/tests/fixtures/matrices/" + bad.fixture + ".json";
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  try {
    load_matrix(path, full_catalog(/*cuda=*/false));
    FAIL() << "expected InputError for " << bad.fixture;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.field(), bad.field) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
    if (!bad.field.empty()) { EXPECT_NE(what.find(bad.field), std::string::npos) << what; }
    EXPECT_NE(what.find(bad.message), std::string::npos) << what;
  }
}

const std::vector<BadInput> kBadInputs = {
    BadInput{"malformed", "", "line 3"}, BadInput{"not_object", "", "must be a JSON object"},
    BadInput{"missing_name", "name", "is required"},
    BadInput{"unknown_key", "stepz", "unknown top-level key 'stepz' (allowed: $schema, name"},
    BadInput{"unknown_axis", "axes.threads", "unknown axis 'threads'"},
    BadInput{"unknown_precision", "axes.precision[1]",
             "unknown precision 'fp8' (allowed: fp32, tf32, amp_fp16, amp_bf16)"},
    BadInput{"wrong_type_workers", "axes.workers", "must be an integer, got \"two\""},
    BadInput{"wrong_type_seed", "seed", "must be an integer"},
    BadInput{"wrong_type_hold", "hold_effective_batch", "must be true or false"},
    BadInput{"zero_batch", "axes.batch[1]", "must be >= 1, got 0"},
    BadInput{"negative_accumulation", "axes.accumulation", "must be >= 1, got -1"},
    BadInput{"zero_steps", "steps.max", "must be >= 1, got 0"},
    BadInput{"negative_workers", "axes.workers[1]", "must be >= 0, got -2"},
    BadInput{"negative_warmup", "steps.warmup", "must be >= 0, got -1"},
    BadInput{"min_greater_than_max", "steps.min", "must be <= steps.max, got min 50 > max 20"},
    BadInput{"indivisible_effective_batch", "axes.batch/axes.accumulation",
             "effective batch 64 is not divisible by accumulation 3"},
    BadInput{"unknown_model", "axes.model[1]", "unknown model 'gpt5' (known: mlp, resnet, transformer)"},
    BadInput{"unknown_dataset", "dataset", "unknown dataset 'imagenet'"},
    BadInput{"missing_dataset_path", "dataset_options.path", "'/nonexistent/trainbench-images' does not exist"},
    BadInput{"cuda_unavailable", "device", "CUDA requested but no GPU is available"},
    BadInput{"empty_axis", "axes.precision", "must not be empty"},
    BadInput{"exclude_unknown_key", "exclude[1].threads", "unknown axis 'threads'"},
    BadInput{"exclude_everything", "exclude", "excludes every scenario"},
    BadInput{"duplicate_axis_value", "axes.batch[2]", "duplicate value 32"},
    BadInput{"unknown_optimizer", "optimizer.name", "unknown optimizer 'lamb' (allowed: adam, adamw, sgd)"},
    BadInput{"negative_delay", "test_delay_ms", "must be >= 0"},
    BadInput{"contention_unknown_key", "contention.steal",
             "unknown contention key 'steal' (allowed: other_cpu_cores, steal_fraction)"},
    BadInput{"contention_steal_above_one", "contention.steal_fraction", "must be <= 1, got 5"},
    BadInput{"unknown_profile_key", "profile.windows", "unknown profile key 'windows'"},
    BadInput{"baseline_unknown_key", "baseline.device", "unknown axis 'device'"},
    BadInput{"baseline_value_not_on_axis", "baseline.batch", "32 matches no scenario: axes.batch has 8, 64"},
    BadInput{"baseline_excluded", "baseline", "matches no scenario: each value is on its axis, but exclude removes"},
    // Known before training: a step needs a whole batch (issue 26).
    BadInput{"batch_above_samples", "dataset_options.samples",
             "16 samples are fewer than the micro-batch 32 of mlp/fp32/w0/a1/b32"},
    BadInput{"batch_above_override_samples", "model_overrides.transformer.dataset_options.samples",
             "4 samples are fewer than the micro-batch 8 of transformer/fp32/w0/a1/b8"},
    BadInput{"bad_device", "device", "unknown device 'tpu' (allowed: cpu, cuda, auto)"},
    // Declared options of models and datasets (trainbench/matrix/option_spec.hpp).
    BadInput{"model_option_typo", "model_options.hiden",
             "unknown option of model 'mlp'; did you mean 'hidden'? (known: hidden, depth)"},
    BadInput{"model_option_wrong_type", "model_options.depth", "must be an integer in [1, 1024], got \"2\""},
    BadInput{"model_option_out_of_range", "model_options.hidden", "must be an integer in [1, 65536], got 0"},
    BadInput{"model_option_not_for_every_model", "model_options.hidden", "unknown option of model 'resnet'"},
    BadInput{"model_option_conflict", "model_options.d_model", "must be divisible by model_options.heads"},
    BadInput{"dataset_option_typo", "dataset_options.sample",
             "unknown option of dataset 'images' (the default dataset of model 'resnet'); did you mean 'samples'?"},
    BadInput{"dataset_option_wrong_type", "dataset_options.shape[1]", "must be an integer >= 1, got \"32\""},
    BadInput{"dataset_option_not_for_dataset", "dataset_options.image_size",
             "unknown option of dataset 'tokens' (known: samples, seq_len, vocab)"},
    BadInput{"dataset_option_conflict", "dataset_options.image_size", "must not exceed stored_size"},
    // The profile block: conflicts are refused by `list`, not by every scenario of `run`.
    BadInput{"profile_cupti_and_kineto", "profile.cupti", "cupti and kineto cannot both be on"},
    BadInput{"profile_cupti_on_cpu", "profile.cupti", "needs a CUDA device, but the matrix runs on cpu"},
    BadInput{"profile_zero_window", "profile.window", "must be >= 1, got 0"},
    // The capacity section, as capacity_search.cpp and utilization_pass.cpp read it.
    BadInput{"capacity_unknown_key", "capacity.max_batches",
             "unknown option of the capacity section; did you mean 'max_batch'?"},
    BadInput{"capacity_bad_value", "capacity.multiple_of", "must be an integer in [1, 2147483647], got 0"},
    BadInput{"capacity_bad_memory_budget", "capacity.memory_budget", "must be a byte size"},
    BadInput{"capacity_bad_target", "capacity.target", "unknown unit 'weeks'"},
    BadInput{"capacity_start_above_max", "capacity.start", "exceeds capacity.max_batch (32)"},
    BadInput{"capacity_batch_not_max", "capacity.batch", "must be one of \"max\", got 64"},
    BadInput{"capacity_bad_price_per_kwh", "capacity.price_per_kwh", "must be a number >= 0, got -0.3"},
    // Hostile input: values valid for the JSON grammar that would exhaust memory or time, or hide
    // the file in the message (issue 9).
    BadInput{"empty", "", "malformed JSON at line 1, column 1"}, BadInput{"truncated", "", "malformed JSON at line 4"},
    BadInput{"number_out_of_range", "",
             "number 1e309 is out of range (a double holds at most about 1.8e308) (at line 3, column 20)"},
    BadInput{"steps_max_too_large", "steps.max", "must be <= 1000000, got 2147483647"},
    BadInput{"warmup_too_large", "steps.warmup", "must be <= 100000, got 1000000"},
    BadInput{"time_budget_too_large", "steps.time_budget_s", "must be <= 604800, got 1000000000"},
    BadInput{"delay_too_large", "test_delay_ms", "must be <= 60000, got 1e+300"},
    BadInput{"seed_above_int64", "seed", "must be <= 9223372036854775807, got 18446744073709551615"},
    BadInput{"seed_not_integer", "seed", "must be an integer, got 4.5"},
    BadInput{"workers_too_many", "axes.workers[1]", "must be <= 1024, got 100000"},
    BadInput{"batch_too_large", "axes.batch", "must be <= 1048576, got 2000000"},
    BadInput{"zero_lr", "optimizer.lr", "must be > 0, got 0"},
    // Data-parallel scenarios (issue 11).
    BadInput{"world_size_zero", "axes.world_size[1]", "must be >= 1, got 0"},
    BadInput{"scaling_unknown", "scaling", "unknown scaling 'linear'"},
    BadInput{"strong_scaling_indivisible", "axes.batch/axes.world_size",
             "micro-batch 64 is not divisible by world_size 3"},
    BadInput{"data_parallel_unknown_key", "data_parallel.bucket_size", "unknown data_parallel key 'bucket_size'"},
    BadInput{"bucket_mb_zero", "data_parallel.bucket_mb", "must be > 0, got 0"},
    BadInput{"reducer_unknown", "axes.reducer[1]", "unknown reducer 'never'"},
    BadInput{"memory_format_unknown", "axes.memory_format[1]",
             "unknown memory_format 'nhwc' (allowed: contiguous, channels_last)"},
    BadInput{"pin_memory_not_boolean", "axes.pin_memory[1]", "must be true or false"},
    BadInput{"optimizer_impl_unknown", "axes.optimizer_impl",
             "unknown optimizer_impl 'apex' (allowed: for_loop, foreach, fused)"},
    BadInput{"weight_decay_negative", "optimizer.weight_decay", "must be >= 0, got -0.1"},
    BadInput{"model_overrides_unknown_model", "model_overrides.gpt",
             "'gpt' is not a model of this matrix (models: mlp, transformer)"},
    BadInput{"model_overrides_unknown_key", "model_overrides.transformer.optimizer", "unknown key 'optimizer'"},
    BadInput{"model_overrides_bad_option", "dataset_options.seq_len", "must be an integer >= 1, got 0"},
    BadInput{"world_size_with_batch_max", "axes.world_size", "runs on one process"},
    BadInput{"long_value", "device",
             "unknown device 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"},
    BadInput{"long_wrong_type", "name", "must be a string, got [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1..."},
    // The user's Python loop (docs/python-loop.md).
    BadInput{"loop_unknown", "loop", "unknown loop 'rust' (allowed: cpp, python)"},
    BadInput{"python_loop_without_file", "python.file", "is required for a Python loop"},
    BadInput{"python_file_missing", "python.file", "no_such_loop.py' is not a file"},
    BadInput{"python_function_not_identifier", "python.function", "must be the name of a function"},
    BadInput{"python_unknown_key", "python.fn", "unknown python key 'fn'"},
    BadInput{"python_without_python_loop", "python", "every scenario runs the C++ loop"},
    BadInput{"compile_on_cpp_loop", "axes.compile", "torch.compile applies to Python loops only"},
    BadInput{"user_axis_builtin_name", "axes.user.precision", "is a built-in axis"},
    BadInput{"user_axis_value_with_slash", "axes.user.data[0]", "a short text without '/'"},
    BadInput{"user_axes_on_cpp_loop", "axes.user", "the C++ loop has nowhere to pass them"},
    BadInput{"python_loop_data_parallel", "axes.world_size", "a Python loop runs in one process"},
    BadInput{"python_loop_batch_max", "axes.batch", "give a Python loop's batch sizes"},
    // Per-scenario CI gates (gate_thresholds.hpp).
    BadInput{"gates_not_list", "gates", "must be a list of rules"},
    BadInput{"gates_unknown_key", "gates[1].mfu_pct", "unknown gate key 'mfu_pct'"},
    BadInput{"gates_no_threshold", "gates[0]", "names no threshold"},
    BadInput{"gates_negative", "gates[0].peak_memory_pct", "must be > 0"},
    BadInput{"gates_match_nothing", "gates[0].match", "matches no scenario of the matrix"},
    BadInput{"gates_match_unknown_axis", "gates[0].match.threads", "unknown axis 'threads'"},
    // Named configurations.
    BadInput{"configurations_bad_name", "configurations[1].name", "letters, digits, _ and -"},
    BadInput{"configurations_unknown_axis", "configurations[0].set.threads", "unknown axis 'threads'"},
    BadInput{"configurations_bad_device", "configurations[0].device", "must be \"cpu\" or \"cuda\""}};

INSTANTIATE_TEST_SUITE_P(Fixtures, MatrixBadInput, ::testing::ValuesIn(kBadInputs),
                         [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.fixture; });

TEST(MatrixBadInputs, MissingFileNamesThePath) {
  try {
    load_matrix("/nonexistent/matrix.json", full_catalog());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/matrix.json");
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

// Bad inputs too large to commit, or not files at all, made at test time in a temporary folder.
struct MadeInput {
  std::string name;
  std::string text;     // the file's contents; empty: `name` is made a directory
  std::string field;    // expected InputError::field()
  std::string message;  // expected part of the message
};

std::string nested(std::size_t depth, const std::string& open, const std::string& inner, const std::string& close) {
  std::string out;
  out.reserve(depth * (open.size() + close.size()) + inner.size());
  for (std::size_t i = 0; i < depth; ++i) out += open;
  out += inner;
  for (std::size_t i = 0; i < depth; ++i) out += close;
  return out;
}

const std::vector<MadeInput>& made_inputs() {
  static const std::vector<MadeInput> inputs = {
      // 1,000,000 nested arrays crashed (SIGSEGV) in nlohmann's recursive copy and dump.
      {"deep_batch", "{\"name\": \"m\", \"axes\": {\"batch\": " + nested(1'000'000, "[", "1", "]") + "}}", "",
       "nested more than 64 levels deep (at line 1, column 95)"},
      {"deep_model_options", "{\"name\": \"m\",\n\"model_options\": " + nested(100'000, "{\"a\": ", "1", "}") + "}", "",
       "nested more than 64 levels deep (at line 2, column 396)"},
      {"deep_unclosed", nested(1'000'000, "[", "", ""), "", "nested more than 64 levels deep"},
      {"long_key", "{\"name\": \"m\", \"" + std::string(1'000'000, 'k') + "\": 1}", std::string(60, 'k') + "...",
       "unknown top-level key"},
      {"long_option_key", "{\"name\": \"m\", \"model_options\": {\"" + std::string(100'000, 'h') + "\": 1}}",
       "model_options." + std::string(60, 'h') + "...", "unknown option of model 'mlp'"},
      {"long_number", "{\"name\": \"m\", \"seed\": 1" + std::string(400, '0') + "}", "",
       "number 1000000000000000000000000000000000000000... is out of range"},
      {"long_string_error", "{\"name\": \"" + std::string(1'000'000, 'x') + "\n\"}", "", "malformed JSON at line 2"},
      {"directory", "", "", "is a directory, not a matrix file"},
  };
  return inputs;
}

class MadeInputs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("tb-made-inputs-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    for (const auto& m : made_inputs()) {
      if (m.text.empty()) std::filesystem::create_directories(path(m));
      else std::ofstream(path(m)) << m.text;
    }
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string path(const MadeInput& m) { return (dir_ / (m.name + ".json")).string(); }
  static std::filesystem::path dir_;
};
std::filesystem::path MadeInputs::dir_;

TEST_F(MadeInputs, RefusedInProcessWithoutCrashing) {
  for (const auto& m : made_inputs()) {
    try {
      load_matrix(path(m), full_catalog());
      ADD_FAILURE() << m.name << " was accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.file(), path(m)) << m.name;
      EXPECT_EQ(e.field(), m.field) << m.name;
      EXPECT_NE(what.find(m.message), std::string::npos) << m.name << ": " << what.substr(0, 500);
    }
  }
}

// Overrides from the command line meet the same limits as the file, named by --set and the key.
const std::vector<std::pair<std::string, std::string>> kBadOverrides = {
    {"axes.batch=" + nested(1'000'000, "[", "1", "]"), "nested more than 64 levels deep (at line 1, column 65)"},
    {"model_options=" + nested(100'000, "{\"a\":", "1", "}"), "nested more than 64 levels deep"},
    {"steps.max=1e309", "number 1e309 is out of range"},
    {nested(100, "a.", "b", "") + "=1", "has more than 64 path segments"},
    {"seed.value=3", "cannot set this path"},
    {std::string(100'000, 'k'), "expected KEY=VALUE"},
};

TEST(MatrixOverrides, HostileOverridesAreRefusedWithTheKey) {
  const json j = {{"name", "m"}, {"seed", 1}};
  for (const auto& [item, message] : kBadOverrides) {
    try {
      apply_set_overrides(j, {item});
      ADD_FAILURE() << item.substr(0, 80) << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "--set");
      EXPECT_LE(e.field().size(), 63u);
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << std::string(e.what()).substr(0, 500);
    }
  }
}

TEST_F(MadeInputs, NoMessageLeaksInternalsOrRunsLong) {
  // Every message of the bad-input corpus: the fixtures, the made files and the overrides.
  std::vector<std::pair<std::string, std::string>> messages;  // (file part, whole message)
  const auto collect = [&](const std::function<void()>& load) {
    try {
      load();
      ADD_FAILURE() << "a bad input was accepted";
    } catch (const InputError& e) { messages.emplace_back(e.file(), e.what()); }
  };
  for (const auto& bad : kBadInputs)
    collect([&] { load_matrix(kSource + "/tests/fixtures/matrices/" + bad.fixture + ".json", full_catalog()); });
  for (const auto& m : made_inputs()) collect([&] { load_matrix(path(m), full_catalog()); });
  // No structured binding here: clang 14 cannot capture one in a lambda.
  for (const auto& bad : kBadOverrides)
    collect([&] { apply_set_overrides({{"name", "m"}, {"seed", 1}}, {bad.first}); });
  ASSERT_EQ(messages.size(), kBadInputs.size() + made_inputs().size() + kBadOverrides.size());
  for (const auto& [file, what] : messages) {
    const std::string shown = what.substr(0, 500);
    for (const char* internal : {"json.exception", "basic_filebuf", "std::", "what()"})
      EXPECT_EQ(what.find(internal), std::string::npos) << shown;
    EXPECT_LE(what.size() - file.size(), 500u) << shown;  // the list of allowed keys included
  }
}

TEST(MatrixBadInputs, UnknownKeysSuggestTheClosestName) {
  const auto message = [](const json& j) {
    try {
      parse(j);
    } catch (const InputError& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  EXPECT_NE(message({{"name", "m"}, {"stepz", {{"max", 3}}}}).find("; did you mean 'steps'?"), std::string::npos);
  EXPECT_NE(message({{"name", "m"}, {"profile", {{"kinteo", true}}}}).find("did you mean 'kineto'?"),
            std::string::npos);
  EXPECT_EQ(message({{"name", "m"}, {"zzzzzz", 1}}).find("did you mean"), std::string::npos);
}

TEST(MatrixOptions, ShippedMatricesPassTheOptionChecks) {
  for (const char* file : {"scenarios/quick.json", "scenarios/seed.json", "scenarios/capacity.json"}) {
    EXPECT_NO_THROW(load_repo_matrix(file)) << file;
  }
  EXPECT_NO_THROW(load_repo_matrix("scenarios/gpu-profile.json", full_catalog(/*cuda=*/true)));
}

TEST(MatrixOptions, DatasetOptionsSeeTheModelsDefaults) {
  // resnet's images get image_size 64 from the model; stored_size 48 is then too small.
  EXPECT_THROW(parse({{"name", "m"}, {"model", "resnet"}, {"dataset_options", {{"stored_size", 48}}}}), InputError);
  EXPECT_NO_THROW(
      parse({{"name", "m"}, {"model", "resnet"}, {"dataset_options", {{"stored_size", 48}, {"image_size", 32}}}}));
}

TEST(MatrixOptions, ModelsWithoutDeclarationsPassThrough) {
  auto o = full_catalog();
  o.known_models.push_back("custom");
  const auto spec = parse({{"name", "m"}, {"model", "custom"}, {"model_options", {{"anything", 1}}}}, o);
  EXPECT_EQ(spec.defaults.model_options["anything"], 1);
}

TEST(MatrixOptions, DisabledProfileIsStillChecked) {
  // `run --profile` turns a disabled block on, so its conflicts are refused either way.
  EXPECT_THROW(parse({{"name", "m"}, {"profile", {{"enabled", false}, {"cupti", true}, {"kineto", true}}}}),
               InputError);
  EXPECT_NO_THROW(parse({{"name", "m"}, {"device", "cuda"}, {"profile", {{"enabled", true}, {"cupti", true}}}},
                        full_catalog(/*cuda=*/true)));
}

TEST(MatrixBadInputs, EveryFixtureIsCovered) {
  // A fixture without a test case is a bad input nobody checks.
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/tests/fixtures/matrices")) {
    const std::string stem = entry.path().stem().string();
    const bool covered =
        std::any_of(kBadInputs.begin(), kBadInputs.end(), [&](const BadInput& b) { return b.fixture == stem; });
    EXPECT_TRUE(covered) << entry.path() << " has no case in kBadInputs";
  }
}

}  // namespace
}  // namespace tb
