// The precision table (trainbench/matrix/precision_table.hpp) is complete and consistent: one
// entry per enum value in enum order, names that round-trip, parse refusing unknown names with
// the matrix's message, one loss reference, and both JSON schemas listing exactly its names.
#include <trainbench/matrix/precision_table.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <trainbench/matrix/matrix.hpp>
#include <trainbench/support/error.hpp>
#include "tests/helpers/matrix_catalog.hpp"

namespace {

using tb::Precision;
using tb::PrecisionDefinition;

TEST(PrecisionTable, OneEntryPerEnumValueInEnumOrder) {
  const auto table = tb::precision_table();
  ASSERT_EQ(table.size(), tb::kPrecisionCount);
  std::set<std::string> names;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const PrecisionDefinition& d = table[i];
    EXPECT_EQ(static_cast<std::size_t>(d.precision), i) << d.name;
    EXPECT_EQ(&tb::definition(d.precision), &d) << d.name;
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate name " << d.name;
    for (const char* text : {d.description, d.datasheet_label, d.chart_colour})
      EXPECT_TRUE(text != nullptr && *text != '\0') << d.name;
    EXPECT_EQ(std::string(d.chart_colour).size(), 7u) << d.name << ": '#rrggbb'";
    // An autocast mode has a reduced dtype to autocast to, and only an autocast mode has one.
    EXPECT_EQ(d.autocast, d.reduced_dtype != tb::ReducedDtype::none) << d.name;
    EXPECT_EQ(d.min_cuda_major > 0, d.cuda_requirement != nullptr) << d.name;
  }
}

TEST(PrecisionTable, NamesRoundTrip) {
  ASSERT_EQ(tb::precision_names().size(), tb::kPrecisionCount);
  for (const PrecisionDefinition& d : tb::precision_table()) {
    EXPECT_EQ(tb::parse_precision(tb::to_string(d.precision)), d.precision) << d.name;
    EXPECT_EQ(tb::precision_names()[static_cast<std::size_t>(d.precision)], d.name);
  }
}

TEST(PrecisionTable, UnknownNamesAreRefusedWithTheMatrixMessage) {
  for (const char* unknown : {"fp8", "FP32", "", "amp_bf16 "}) EXPECT_FALSE(tb::parse_precision(unknown)) << unknown;
  try {
    tb::parse_matrix({{"name", "m"}, {"axes", {{"precision", "fp8"}}}}, "x.json", tb::full_catalog());
    ADD_FAILURE() << "fp8 was accepted";
  } catch (const tb::InputError& e) {
    EXPECT_STREQ(e.what(), "x.json: axes.precision: unknown precision 'fp8' (allowed: fp32, tf32, amp_fp16, amp_bf16)");
  }
}

TEST(PrecisionTable, ExactlyOneLossReference) {
  int references = 0;
  for (const PrecisionDefinition& d : tb::precision_table()) references += d.loss_reference ? 1 : 0;
  EXPECT_EQ(references, 1);
  EXPECT_EQ(tb::loss_reference_precision(), Precision::fp32);
}

TEST(PrecisionTable, DerivedNamesOfWhatEachModeComputesIn) {
  struct Case {
    Precision precision;
    const char* operands;
  };
  for (const Case& c : {Case{Precision::fp32, "float32"}, Case{Precision::tf32, "tf32"},
                        Case{Precision::amp_fp16, "float16"}, Case{Precision::amp_bf16, "bfloat16"}})
    EXPECT_STREQ(tb::matmul_operands(c.precision), c.operands) << tb::to_string(c.precision);
}

// The schemas are static files: this is what keeps their precision enums equal to the table.
TEST(PrecisionTable, BothSchemasListExactlyTheTablesNames) {
  const nlohmann::json names = tb::precision_names();
  for (const char* schema : {"/schema/matrix.schema.json", "/schema/results.schema.json"}) {
    std::ifstream in(std::string(TB_SOURCE_DIR) + schema);
    ASSERT_TRUE(in) << schema;
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("$defs").at("precision").at("enum"), names) << schema;
  }
}

}  // namespace
