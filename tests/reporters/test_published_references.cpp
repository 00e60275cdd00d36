// The published-throughputs table (data/published_throughputs.json) and what reports say beside
// it: every entry quotes a source; the datasheet peaks are the ones MFU falls back to; a run on
// an H200 sets its best scenario of each model and precision beside the best H200 figure, with
// both MFUs; a CPU run or a model without figures says nothing.
#include <trainbench/reporters/published_references.hpp>

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <trainbench/capacity/utilization.hpp>
#include <trainbench/reporters/findings.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/scratch_dir.hpp"
#include "tests/helpers/synthetic_runs.hpp"

namespace tb::report {
namespace {

const std::string kTable = std::string(TB_SOURCE_DIR) + "/data/published_throughputs.json";

TEST(PublishedReferences, EveryEntryQuotesItsSourceAndItsGpusDatasheetPeak) {
  const auto table = load_published_references(kTable);
  ASSERT_GE(table.size(), 6u);
  std::ifstream in(kTable);
  const auto j = nlohmann::json::parse(in);
  for (const auto& e : j.at("entries")) {
    EXPECT_FALSE(e.at("quote").get<std::string>().empty()) << e.dump();
    EXPECT_EQ(e.at("source").at("url").get<std::string>().rfind("http", 0), 0u) << e.dump();
  }
  for (const char* w : {"resnet50", "vit_b_16", "gpt2"})
    EXPECT_TRUE(std::any_of(table.begin(), table.end(), [&](const PublishedEntry& e) { return e.workload == w; })) << w;
  // The table's datasheet peaks are the ones MFU falls back to (capacity/utilization.hpp): one
  // fact, quoted here with its source, coded there.
  for (const auto& peak : j.at("datasheet_peaks")) {
    const std::string name = "NVIDIA " + peak.at("gpu_class").get<std::string>();
    const auto coded = capacity::datasheet_peak_flops(name, Precision::amp_bf16);
    ASSERT_TRUE(coded.has_value()) << name;
    EXPECT_NEAR(coded->flops_per_s / 1e12, peak.at("bf16_dense_tflops").get<double>(), 1.0) << name;
  }
}

TEST(PublishedReferences, AMalformedTableIsRefusedNamingTheEntry) {
  const auto dir = test::scratch_dir("published_bad");
  std::ofstream(dir / "t.json") << R"({"entries": [{"workload": "gpt2", "gpu_class": "H100"}]})";
  try {
    load_published_references((dir / "t.json").string());
    FAIL();
  } catch (const InputError& e) { EXPECT_EQ(e.field(), "entries[0]"); }
}

TEST(PublishedReferences, GpuClassesAndPrecisions) {
  EXPECT_EQ(gpu_class_of("NVIDIA H200"), "H200");
  EXPECT_EQ(gpu_class_of("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(gpu_class_of("NVIDIA A100-SXM4-80GB"), "A100");
  EXPECT_EQ(gpu_class_of("NVIDIA GH200 480GB"), "");
  EXPECT_EQ(gpu_class_of("NVIDIA L4"), "");
  EXPECT_TRUE(precision_matches(Precision::amp_bf16, "amp"));
  EXPECT_TRUE(precision_matches(Precision::amp_bf16, "bf16"));
  EXPECT_FALSE(precision_matches(Precision::amp_bf16, "fp16"));
  EXPECT_TRUE(precision_matches(Precision::fp32, "tf32"));
  EXPECT_FALSE(precision_matches(Precision::fp32, "amp"));
}

TEST(PublishedReferences, AnH200RunIsSetBesideTheBestH200Figure) {
  auto fast = testing::make_scenario("resnet50", Precision::amp_bf16, 256, testing::jittered(0.1, 0.01, 20, 1));
  auto slow = testing::make_scenario("resnet50", Precision::amp_bf16, 32, testing::jittered(0.02, 0.01, 20, 2));
  fast.samples_per_s = 2560;  // exactly, for the sentence below
  ScenarioCapacitySection cap;
  cap.achieved_flops_per_s = 300e12;
  cap.peak_flops_per_s = 600e12;
  cap.peak_source = "measured";
  fast.capacity = cap;
  auto run = testing::make_run("h200", {slow, fast}, "Intel Xeon", "2026-12-04T00:00:00Z");
  run.environment["device"] = "cuda";
  run.environment["gpu"] = {{"name", "NVIDIA H200"}, {"count", 1}};
  const std::vector<PublishedEntry> table = {
      {"resnet50", "H200 SXM", "H200", "amp", "images/s", "PyTorch eager", "Lambda", "https://example.org/h200", 3000,
       2560, 989},
      {"resnet50", "H200 SXM", "H200", "amp", "images/s", "PyTorch eager", "Other", "https://example.org/slower", 2000,
       256, 989},
      {"resnet50", "H100 SXM", "H100", "amp", "images/s", "PyTorch eager", "H100", "https://example.org/h100", 2600,
       256, 989},
      {"gpt2", "H200", "H200", "bf16", "tokens/s", "llm.c", "x", "https://example.org/gpt2", 500000, 64, 989}};
  const auto lines = published_reference_lines(run, table);
  ASSERT_EQ(lines.size(), 1u) << "one model and precision measured; no GPT-2 scenario";
  // 2560 images/s (batch 256 at 0.1 s) is 85.3% of 3000; MFU 50% of the measured 600 TFLOPS,
  // 30.3% of the datasheet's 989.
  EXPECT_NE(
      lines[0].find("resnet50/amp_bf16/w0/a1/b256: 2560 images/s = 85.3% of the best published H200 figure, 3000"),
      std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("batch 2560"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("https://example.org/h200"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("MFU 50.0% of the measured peak, 30.3% of the datasheet's 989 TFLOPS"), std::string::npos)
      << lines[0];
  // The same run on a CPU (or a GPU without figures) has no such line.
  run.environment.erase("gpu");
  EXPECT_TRUE(published_reference_lines(run, table).empty());
}

}  // namespace
}  // namespace tb::report
