// The fixed-choice scenario parameters: every name parses to its value and prints back the same,
// unknown names are refused, and ids and JSON spell the values as matrices write them.
#include <gtest/gtest.h>

#include <trainbench/matrix/axis.hpp>
#include <trainbench/matrix/matrix.hpp>
#include <trainbench/matrix/scenario.hpp>
#include <trainbench/matrix/scenario_choices.hpp>
#include <trainbench/support/error.hpp>

namespace tb {
namespace {

using nlohmann::json;

template <typename E>
void expect_round_trip(const std::vector<std::string>& expected_names) {
  EXPECT_EQ(choice_names<E>(), expected_names);
  for (std::size_t i = 0; i < expected_names.size(); ++i) {
    const auto value = parse_choice<E>(expected_names[i]);
    ASSERT_TRUE(value) << expected_names[i];
    EXPECT_EQ(static_cast<std::size_t>(*value), i) << expected_names[i];
    EXPECT_EQ(to_string(*value), expected_names[i]);
  }
}

TEST(ScenarioChoices, EveryNameParsesAndPrintsBack) {
  expect_round_trip<DeviceKind>({"cpu", "cuda"});
  expect_round_trip<OptimizerKind>({"adam", "adamw", "sgd"});
  expect_round_trip<ScalingMode>({"weak", "strong"});
  expect_round_trip<ReducerMode>({"auto", "always"});
  expect_round_trip<MemoryFormatKind>({"contiguous", "channels_last"});
  expect_round_trip<OptimizerImpl>({"for_loop", "foreach", "fused"});
}

TEST(ScenarioChoices, UnknownNamesAreRefused) {
  EXPECT_FALSE(parse_choice<DeviceKind>("tpu"));
  EXPECT_FALSE(parse_choice<DeviceKind>("auto")) << "a matrix's auto is resolved before it is a scenario's device";
  EXPECT_FALSE(parse_choice<OptimizerKind>("rmsprop"));
  EXPECT_FALSE(parse_choice<OptimizerKind>("Adam")) << "names are case-sensitive, as matrices always were";
  EXPECT_FALSE(parse_choice<ScalingMode>("linear"));
  EXPECT_FALSE(parse_choice<ReducerMode>("automatic")) << "the enum's name is not the written one";
  EXPECT_FALSE(parse_choice<MemoryFormatKind>("nhwc"));
  EXPECT_FALSE(parse_choice<OptimizerImpl>(""));
}

// A scenario with every choice away from its default: its id and JSON spell the names.
ScenarioParams unusual() {
  ScenarioParams p;
  p.device = DeviceKind::cuda;
  p.optimizer = OptimizerKind::adamw;
  p.scaling = ScalingMode::strong;
  p.reducer = ReducerMode::always;
  p.memory_format = MemoryFormatKind::channels_last;
  p.optimizer_impl = OptimizerImpl::fused;
  return p;
}

TEST(ScenarioChoices, IdsAndJsonSpellTheNames) {
  const ScenarioParams p = unusual();
  EXPECT_EQ(scenario_id(p), "mlp/fp32/w0/a1/b32/reducer-always/channels_last/adamw/strong/fused");
  const json j = p;
  EXPECT_EQ(j.at("device"), "cuda");
  EXPECT_EQ(j.at("optimizer"), "adamw");
  EXPECT_EQ(j.at("scaling"), "strong");
  EXPECT_EQ(j.at("reducer"), "always");
  EXPECT_EQ(j.at("memory_format"), "channels_last");
  EXPECT_EQ(j.at("optimizer_impl"), "fused");
  EXPECT_TRUE(j.contains("data_parallel")) << "reducer always is data parallel";

  const ScenarioParams back = j.get<ScenarioParams>();
  EXPECT_EQ(json(back), j);
  EXPECT_EQ(scenario_id(back), scenario_id(p));
}

TEST(ScenarioChoices, AResultsFileWithAnUnknownNameStillLoads) {
  json j = unusual();
  j["device"] = "tpu";  // written by a newer build, or edited
  const ScenarioParams back = j.get<ScenarioParams>();
  EXPECT_EQ(back.device, DeviceKind::cpu) << "an unknown name keeps the default, as for precision";
  EXPECT_EQ(back.optimizer, OptimizerKind::adamw);
}

TEST(ScenarioChoices, TheMatrixRefusesUnknownNamesNamingTheField) {
  const json matrix = {{"name", "m"}, {"scaling", "linear"}};
  try {
    parse_matrix(matrix, "m.json", MatrixParseOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "scaling");
    EXPECT_NE(std::string(e.what()).find("unknown scaling 'linear' (allowed: weak, strong)"), std::string::npos)
        << e.what();
  }
}

TEST(ScenarioChoices, TheAxesTableListsEachFieldsNames) {
  EXPECT_EQ(find_axis("device")->choices, &choice_names<DeviceKind>());
  EXPECT_EQ(find_axis("optimizer")->choices, &choice_names<OptimizerKind>());
  EXPECT_EQ(find_axis("scaling")->choices, &choice_names<ScalingMode>());
  EXPECT_EQ(find_axis("reducer")->choices, &choice_names<ReducerMode>());
  EXPECT_EQ(find_axis("memory_format")->choices, &choice_names<MemoryFormatKind>());
  EXPECT_EQ(find_axis("optimizer_impl")->choices, &choice_names<OptimizerImpl>());
  EXPECT_EQ(find_axis("precision")->choices, &precision_names());
  EXPECT_EQ(find_axis("model")->choices, nullptr) << "free text";
}

TEST(ScenarioChoices, DataParallelIsSeveralRanksOrTheReducerAlone) {
  ScenarioParams p;
  EXPECT_FALSE(is_data_parallel(p));
  p.world_size = 2;
  EXPECT_TRUE(is_data_parallel(p));
  p.world_size = 1;
  p.reducer = ReducerMode::always;
  EXPECT_TRUE(is_data_parallel(p));
}

}  // namespace
}  // namespace tb
