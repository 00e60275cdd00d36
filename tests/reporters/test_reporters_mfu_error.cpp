// An MFU above 100% is a measurement error (issue 8): every report (console, Markdown, HTML, CSV
// and the shared capacity tables) shows it as one, never as a utilisation, whether the results
// carry capacity.mfu_error (written by capacity_json) or predate that field.
#include <algorithm>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

#include <trainbench/capacity/utilization.hpp>
#include <trainbench/reporters/capacity_tables.hpp>
#include <trainbench/reporters/csv_reporter.hpp>
#include <trainbench/reporters/html_reporter.hpp>
#include <trainbench/reporters/reporter.hpp>
#include "tests/reporters/test_reporters_support.hpp"

namespace tb {
namespace {

using test::fixture_run;
using test::render;

constexpr const char* kId = "transformer/fp32/w0/a1/b32";

ScenarioResult& scenario(RunResult& run, const std::string& id) {
  for (auto& s : run.scenarios)
    if (s.id == id) return s;
  throw std::runtime_error("fixture has no scenario " + id);
}

// The fixture with the fp32 transformer at an MFU of 107.31% against an under-measured peak.
// with_error_field: as capacity_section writes it now; without: a results file from before
// (read back through the section's JSON form, which derives the error for such files).
RunResult over_peak_run(bool with_error_field) {
  RunResult run = fixture_run();
  nlohmann::json c = scenario(run, kId).capacity.value();
  c["peak_flops_per_s"] = 8.06e12;
  c["mfu"] = 1.0731;
  c.erase("mfu_error");
  if (with_error_field) c["mfu_error"] = capacity::mfu_error(1.0731);
  scenario(run, kId).capacity = c.get<ScenarioCapacitySection>();
  return run;
}

// The line of `text` that starts at the first occurrence of `needle` after `from`.
std::string line_with(const std::string& text, const std::string& needle, std::size_t from = 0) {
  const auto at = text.find(needle, from);
  if (at == std::string::npos) return "";
  const auto begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

class MfuError : public ::testing::TestWithParam<bool> {};

TEST(MfuErrorText, OnlyAbove100Percent) {
  EXPECT_EQ(capacity::mfu_error(0.5), "");
  EXPECT_EQ(capacity::mfu_error(1.0), "");
  const std::string e = capacity::mfu_error(1.0731);
  EXPECT_EQ(e.rfind("MFU 107.31% exceeds 100%", 0), 0u) << e;
  EXPECT_NE(e.find("under-measured"), std::string::npos) << e;
}

TEST_P(MfuError, CapacityTableCellIsAnError) {
  const RunResult run = over_peak_run(GetParam());
  const auto table = report::scenario_capacity_table(run);
  bool found = false;
  for (const auto& row : table.rows) {
    if (row[0] != kId) {
      EXPECT_EQ(row[5].find("error"), std::string::npos) << row[0] << " is a real utilisation";
      continue;
    }
    found = true;
    EXPECT_EQ(row[5], "error: >100% (peak under-measured)");
  }
  EXPECT_TRUE(found);
  const auto errors = report::mfu_errors(run);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, kId);
}

TEST_P(MfuError, Console) {
  const std::string text = render("console", over_peak_run(GetParam()));
  const std::string row = line_with(text, kId, text.find("\nCapacity\n"));
  EXPECT_NE(row.find("error: >100% (peak under-measured)"), std::string::npos) << row;
  EXPECT_EQ(row.find("107.31%"), std::string::npos) << "printed as a utilisation: " << row;
  EXPECT_NE(text.find(std::string("ERROR MFU ") + kId + ": MFU 107.31% exceeds 100%"), std::string::npos) << text;
}

TEST_P(MfuError, Markdown) {
  const std::string md = render("md", over_peak_run(GetParam()));
  const std::string row = line_with(md, std::string("| `") + kId + "` | 5.82 |");
  EXPECT_NE(row.find("| error: >100% (peak under-measured) |"), std::string::npos) << row;
  EXPECT_NE(md.find(std::string("- ❌ **MFU error** `") + kId + "`: MFU 107.31% exceeds 100%"), std::string::npos) << md;
}

TEST_P(MfuError, Html) {
  HtmlReporter reporter("/nonexistent/chart.min.js");
  const std::string html = render(reporter, over_peak_run(GetParam()));
  const auto table = html.find("<table id=\"tb-capacity\">");
  ASSERT_NE(table, std::string::npos);
  const std::string row = line_with(html, std::string("<code>") + kId + "</code>", table);
  EXPECT_NE(row.find("<td class=\"num bad\" title=\"MFU 107.31% exceeds 100%"), std::string::npos) << row;
  EXPECT_NE(row.find(">error: &gt;100% (peak under-measured)</td>"), std::string::npos) << row;
  EXPECT_NE(html.find("id=\"tb-mfu-errors\""), std::string::npos);
}

TEST_P(MfuError, CsvKeepsTheNumberAndAddsTheError) {
  const std::string csv = render("csv", over_peak_run(GetParam()));
  const auto& cols = CsvReporter::columns();
  const auto error_column = std::find(cols.begin(), cols.end(), "mfu_error");
  ASSERT_NE(error_column, cols.end());
  ASSERT_EQ(*std::prev(error_column), "mfu");
  const std::string row = line_with(csv, std::string(kId) + ",ok,");
  ASSERT_FALSE(row.empty()) << csv;
  EXPECT_NE(row.find(",1.0731,\"MFU 107.31% exceeds 100%"), std::string::npos) << row;
  // A real utilisation leaves the column empty (and so are the data-parallel columns after it).
  const std::string empty_after(static_cast<std::size_t>(cols.end() - error_column - 1), ',');
  const std::string expected_end = ",0.00108," + empty_after + "\r";
  const std::string mlp = line_with(csv, "mlp/fp32/w0/a1/b64,ok,");
  ASSERT_GE(mlp.size(), expected_end.size());
  EXPECT_EQ(mlp.substr(mlp.size() - expected_end.size()), expected_end) << mlp;
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutField, MfuError, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Recorded" : "Derived"; });

}  // namespace
}  // namespace tb
