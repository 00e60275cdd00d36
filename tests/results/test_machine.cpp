#include <trainbench/results/machine.hpp>

#include <gtest/gtest.h>

namespace {

using nlohmann::json;
using tb::gpu_names;
using tb::machine_label;

TEST(Machine, GpuNamesFromEitherManifestShape) {
  EXPECT_EQ(gpu_names(json{{"gpu", json::array({{{"name", "H200"}}, {{"name", "H200"}}})}}),
            (std::vector<std::string>{"H200", "H200"}));
  EXPECT_EQ(gpu_names(json{{"gpu", {{"name", "H200"}, {"count", 2}}}}), (std::vector<std::string>{"H200", "H200"}));
  EXPECT_EQ(gpu_names(json{{"gpu", json::array()}}), std::vector<std::string>{});
  EXPECT_EQ(gpu_names(json::array()), std::vector<std::string>{});
}

TEST(Machine, LabelNamesCpuGpusAndDevice) {
  EXPECT_EQ(machine_label(json{{"cpu", {{"model", "AMD EPYC"}}}, {"device", "cpu"}, {"gpu", json::array()}}),
            "AMD EPYC (cpu)");
  // The two manifest shapes of the same GPUs give one label: the same machine.
  const json listed = {{"cpu", {{"model", "Xeon"}}},
                       {"device", "cuda"},
                       {"gpu", json::array({{{"name", "NVIDIA H200"}}, {{"name", "NVIDIA H200"}}})}};
  const json counted = {
      {"cpu", {{"model", "Xeon"}}}, {"device", "cuda"}, {"gpu", {{"name", "NVIDIA H200"}, {"count", 2}}}};
  EXPECT_EQ(machine_label(listed), "Xeon + 2x NVIDIA H200 (cuda)");
  EXPECT_EQ(machine_label(counted), machine_label(listed));
  EXPECT_EQ(machine_label(json::object()), "unknown CPU");
  EXPECT_EQ(machine_label(json{{"cpu", "x"}, {"device", 3}}), "unknown CPU");
  EXPECT_EQ(machine_label(json("not an object")), "unknown CPU");
}

}  // namespace
