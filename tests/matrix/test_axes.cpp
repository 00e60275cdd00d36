// The axis table (trainbench/matrix/axis.hpp): ids and keys as before it, and completeness: every field
// of the table reaches ids, keys, results.json, the `list` table, the CSV header and the chart
// series labels; the value rules give the matrix parser's messages; the combination order.
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/cartesian_product.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/matrix_listing.hpp>
#include <trainbench/reporters/html_chart_data.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/matrix_catalog.hpp"
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using nlohmann::json;

// A scenario whose every field differs from the defaults.
ScenarioParams unusual_scenario() {
  ScenarioParams p;
  p.model = "transformer";
  p.dataset = "tokens";
  p.device = tb::DeviceKind::cuda;
  p.optimizer = tb::OptimizerKind::sgd;
  p.precision = Precision::amp_bf16;
  p.workers = 3;
  p.accumulation = 4;
  p.batch = 16;
  p.effective_batch = 64;
  return p;
}

// `p` with the field of `axis` changed to another valid value.
ScenarioParams with_other_value(const ScenarioParams& p, const ScenarioAxis& axis) {
  const json value = axis.value(p);
  json other;
  if (value.is_boolean()) {
    other = !value.get<bool>();
  } else if (value.is_number_integer()) {
    other = value.get<int>() + 1;
  } else if (axis.choices != nullptr) {
    for (const auto& choice : *axis.choices)
      if (choice != value) other = choice;
  } else {
    other = value.get<std::string>() + "2";
  }
  ScenarioParams changed = p;
  axis.read(json{{axis.name, other}}, axis.name, changed);
  EXPECT_NE(axis.value(changed), value) << axis.name;
  return changed;
}

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream is(line);
  for (std::string cell; std::getline(is, cell, ',');) cells.push_back(cell);
  return cells;
}

std::vector<std::string> csv_lines(const RunResult& run) {
  std::istringstream is(test::render("csv", run));
  std::vector<std::string> lines;
  for (std::string line; std::getline(is, line, '\n');) lines.push_back(line.substr(0, line.find('\r')));
  return lines;
}

RunResult run_of(const std::vector<ScenarioParams>& scenarios) {
  RunResult run;
  run.run_id = "r";
  run.matrix_name = "m";
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    ScenarioResult s;
    s.params = scenarios[i];
    s.id = scenario_id(s.params);
    s.samples_per_s = 100.0 * static_cast<double>(i + 1);
    run.scenarios.push_back(s);
  }
  return run;
}

TEST(AxisTable, FieldsInKeyOrderProductAxesInExpandOrder) {
  std::vector<std::string> names;
  for (const ScenarioAxis& axis : scenario_axes()) names.push_back(axis.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"model", "dataset", "device", "optimizer", "scaling", "precision", "workers",
                                      "accumulation", "batch", "world_size", "reducer", "memory_format", "pin_memory",
                                      "cudnn_benchmark", "cuda_graphs", "optimizer_impl", "loop", "compile"}));
  EXPECT_EQ(matrix_axis_names(),
            (std::vector<std::string>{"model", "precision", "workers", "accumulation", "batch", "world_size", "reducer",
                                      "memory_format", "pin_memory", "cudnn_benchmark", "cuda_graphs", "optimizer_impl",
                                      "loop", "compile"}));
  EXPECT_EQ(find_axis("workers"), &scenario_axes()[6]);
  EXPECT_EQ(find_axis("effective_batch"), nullptr);
}

TEST(AxisTable, IdsAreTheSameAsBeforeTheTable) {
  EXPECT_EQ(scenario_id(ScenarioParams{}), "mlp/fp32/w0/a1/b32");
  EXPECT_EQ(scenario_id(unusual_scenario()), "transformer@tokens/amp_bf16/w3/a4/b16/sgd");
  ScenarioParams adam = unusual_scenario();
  adam.optimizer = tb::OptimizerKind::adam;
  adam.dataset = "";
  EXPECT_EQ(scenario_id(adam), "transformer/amp_bf16/w3/a4/b16");
}

TEST(AxisTable, KeyHasEveryFieldAndNothingElse) {
  const json key = scenario_key(unusual_scenario());
  EXPECT_EQ(key, json({{"model", "transformer"},
                       {"dataset", "tokens"},
                       {"device", "cuda"},
                       {"optimizer", "sgd"},
                       {"precision", "amp_bf16"},
                       {"workers", 3},
                       {"accumulation", 4},
                       {"batch", 16},
                       {"scaling", "weak"},
                       {"world_size", 1},
                       {"reducer", "auto"},
                       {"memory_format", "contiguous"},
                       {"pin_memory", false},
                       {"cudnn_benchmark", false},
                       {"cuda_graphs", false},
                       {"optimizer_impl", "for_loop"}}));
}

TEST(AxisTable, OptimisationSwitchesReadInIds) {
  ScenarioParams p = unusual_scenario();
  p.memory_format = tb::MemoryFormatKind::channels_last;
  p.pin_memory = true;
  p.cudnn_benchmark = true;
  p.cuda_graphs = true;
  p.optimizer_impl = tb::OptimizerImpl::fused;
  EXPECT_EQ(scenario_id(p), "transformer@tokens/amp_bf16/w3/a4/b16/channels_last/pinned/cudnn-bench/graphs/sgd/fused");
}

TEST(AxisTable, ResultsJsonRoundTripsEveryField) {
  const ScenarioParams p = unusual_scenario();
  const json j = p;
  const auto back = j.get<ScenarioParams>();
  EXPECT_EQ(scenario_key(back), scenario_key(p));
  EXPECT_EQ(back.effective_batch, 64);
  // Absent fields keep the defaults.
  EXPECT_EQ(scenario_key(json::object().get<ScenarioParams>()), scenario_key(ScenarioParams{}));
}

// Two scenarios that differ in one field must differ wherever scenarios are told apart: an axis
// missing from one of these would merge results, rows or chart lines.
TEST(AxisCompleteness, EveryFieldTellsScenariosApart) {
  const ScenarioParams p = unusual_scenario();
  for (const ScenarioAxis& axis : scenario_axes()) {
    SCOPED_TRACE(axis.name);
    const ScenarioParams q = with_other_value(p, axis);
    EXPECT_NE(scenario_key(p), scenario_key(q));
    if (axis.id.shown) { EXPECT_NE(scenario_id(p), scenario_id(q)); }
    for (const char* varying : {"workers", "batch"}) {
      if (axis.splits_chart_series && axis.name != std::string(varying)) {
        EXPECT_NE(series_label(p, varying), series_label(q, varying)) << "varying " << varying;
      }
    }
    const auto rows = csv_lines(run_of({p, q}));
    ASSERT_EQ(rows.size(), 3u);
    const auto fields = [](const std::string& row) {
      const auto cells = csv_cells(row);
      const auto first = cells.begin() + 3;
      return std::vector<std::string>(first, first + static_cast<long>(scenario_axes().size()));
    };
    EXPECT_NE(fields(rows[1]), fields(rows[2]));
  }
}

TEST(AxisCompleteness, CsvHeaderHasEveryFieldInTableOrder) {
  const auto header = csv_cells(csv_lines(run_of({unusual_scenario()}))[0]);
  const auto row = csv_cells(csv_lines(run_of({unusual_scenario()}))[1]);
  ASSERT_GE(header.size(), 3 + scenario_axes().size());
  EXPECT_EQ(header[2], "message");
  for (std::size_t i = 0; i < scenario_axes().size(); ++i) {
    const ScenarioAxis& axis = scenario_axes()[i];
    EXPECT_EQ(header[3 + i], axis.name);
    EXPECT_EQ(row[3 + i], axis_text(axis.value(unusual_scenario()))) << axis.name;
  }
  EXPECT_EQ(header[3 + scenario_axes().size()], "effective_batch");
}

TEST(AxisCompleteness, ListingHasAColumnPerListedField) {
  // Two world sizes: the ranks column is left out when every scenario has one rank.
  const MatrixSpec spec = parse_matrix({{"name", "m"},
                                        {"dataset", "tokens"},
                                        {"axes",
                                         {{"workers", {0, 3}},
                                          {"world_size", {1, 2}},
                                          {"memory_format", {"contiguous", "channels_last"}},
                                          {"pin_memory", {false, true}},
                                          {"cudnn_benchmark", {false, true}},
                                          {"cuda_graphs", {false, true}},
                                          {"optimizer_impl", {"for_loop", "fused"}}}}},
                                       "inline.json", full_catalog());
  const std::string listing = format_scenario_list(spec, expand(spec));
  const std::string header = listing.substr(listing.find("  #"));
  std::istringstream is(header);
  std::vector<std::string> words;
  for (std::string w; is >> w;) words.push_back(w);
  std::vector<std::string> expected = {"#", "id"};
  // loop and compile are hidden: every scenario here is trainbench's own C++ loop.
  for (const ScenarioAxis& axis : scenario_axes())
    if (axis.listing.header != nullptr && std::string(axis.name) != "loop" && std::string(axis.name) != "compile")
      expected.push_back(axis.listing.header);
  expected.push_back("eff-batch");
  words.resize(expected.size());
  EXPECT_EQ(words, expected);
  EXPECT_NE(listing.find("order: workers, world_size, memory_format, pin_memory, cudnn_benchmark, cuda_graphs, "
                         "optimizer_impl"),
            std::string::npos);
  // Numbers right-aligned: "workers" is wider than its values.
  EXPECT_NE(listing.find("      0"), std::string::npos);
}

TEST(AxisCompleteness, ChartSeriesLabelsLeaveOutOnlyTheVaryingAxis) {
  const ScenarioParams p = unusual_scenario();
  EXPECT_EQ(series_label(p, "workers"), "transformer@tokens/amp_bf16/a4/b16/sgd (cuda)");
  EXPECT_EQ(series_label(p, "batch"), "transformer@tokens/amp_bf16/w3/a4/sgd (cuda)");
  EXPECT_EQ(scenario_id_without(p, "optimizer"), "transformer@tokens/amp_bf16/w3/a4/b16");

  // Two scenarios that differ only in workers are one line; a third in another precision is not.
  ScenarioParams w0 = p, w8 = p, other = p;
  w0.workers = 0;
  w8.workers = 8;
  other.precision = Precision::fp32;
  const json charts = html_chart_data(run_of({w0, w8, other}))["charts"];
  const json* workers_chart = nullptr;
  for (const auto& chart : charts)
    if (chart["id"] == "throughput-workers") workers_chart = &chart;
  ASSERT_NE(workers_chart, nullptr);
  ASSERT_EQ((*workers_chart)["datasets"].size(), 1u);
  EXPECT_EQ((*workers_chart)["datasets"][0]["label"], series_label(p, "workers"));
  EXPECT_EQ((*workers_chart)["datasets"][0]["data"].size(), 2u);
}

TEST(AxisValueRules, GiveTheMatrixParsersMessages) {
  const auto message = [](const json& axes) {
    try {
      parse_matrix({{"name", "m"}, {"axes", axes}}, "x.json", full_catalog());
    } catch (const InputError& e) { return std::string(e.what()); }
    return std::string("accepted");
  };
  EXPECT_EQ(message({{"workers", {0, -2}}}), "x.json: axes.workers[1]: must be >= 0, got -2");
  EXPECT_EQ(message({{"accumulation", 0}}), "x.json: axes.accumulation: must be >= 1, got 0");
  EXPECT_EQ(message({{"batch", {8, 8}}}), "x.json: axes.batch[1]: duplicate value 8");
  EXPECT_EQ(message({{"precision", "fp8"}}),
            "x.json: axes.precision: unknown precision 'fp8' (allowed: fp32, tf32, amp_fp16, amp_bf16)");
  EXPECT_EQ(message({{"model", {"mlp", "gpt"}}}),
            "x.json: axes.model[1]: unknown model 'gpt' (known: mlp, resnet, transformer)");
  EXPECT_EQ(message({{"batch", "min"}}),
            "x.json: axes.batch: must be a positive integer, a list of them, or \"max\", got \"min\"");
}

TEST(AxisBaseline, DefaultsComeFromTheTable) {
  const MatrixSpec spec =
      parse_matrix({{"name", "m"},
                    {"axes", {{"model", {"resnet", "mlp"}}, {"precision", {"amp_bf16", "fp32"}}, {"batch", {64, 8}}}}},
                   "inline.json", full_catalog());
  const BaselineChoice choice = choose_baseline(spec, expand(spec));
  EXPECT_EQ(choice.wanted, json({{"model", "resnet"},
                                 {"precision", "fp32"},
                                 {"workers", 0},
                                 {"accumulation", 1},
                                 {"batch", 64},
                                 {"world_size", 1},
                                 {"reducer", "auto"},
                                 {"memory_format", "contiguous"},
                                 {"pin_memory", false},
                                 {"cudnn_benchmark", false},
                                 {"cuda_graphs", false},
                                 {"optimizer_impl", "for_loop"},
                                 {"loop", "cpp"},
                                 {"compile", "eager"}}));
  EXPECT_TRUE(choice.matched);
  EXPECT_EQ(scenario_id(expand(spec)[choice.index]), "resnet/fp32/w0/a1/b64");
}

TEST(CartesianProduct, LastIndexVariesFastest) {
  std::vector<std::vector<std::size_t>> seen;
  for_each_combination({2, 1, 3}, [&](const std::vector<std::size_t>& indices) { seen.push_back(indices); });
  EXPECT_EQ(seen,
            (std::vector<std::vector<std::size_t>>{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {1, 0, 0}, {1, 0, 1}, {1, 0, 2}}));
}

TEST(CartesianProduct, AnEmptyListMakesNoCombination) {
  int calls = 0;
  for_each_combination({2, 0, 3}, [&](const std::vector<std::size_t>&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace tb
