// One row per scenario, every parameter and metric a column (RFC 4180: CRLF line ends, fields
// with commas, quotes or line breaks quoted, quotes doubled). The columns are one table of
// {name, cell}: the header and every row come from it, so they cannot drift apart. Sections
// contribute their scalar fields (comparison, loss parity, capacity); absent values are empty.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <trainbench/reporters/reporter.hpp>

namespace tb {

struct CsvColumn {
  std::string name;
  std::function<std::string(const ScenarioResult&)> cell;  // the unquoted text of one row's cell
};

class CsvReporter final : public Reporter {
 public:
  std::string name() const override { return "csv"; }
  std::string default_file_name() const override { return "results.csv"; }

  // Every column, in order: the axes' own columns come from the axis table (matrix/axis.hpp).
  static const std::vector<CsvColumn>& column_table();
  // The header row, in column order.
  static const std::vector<std::string>& columns();
  // RFC 4180 quoting of one field.
  static std::string quote(const std::string& field);

 private:
  void do_render(const RunResult& run, const ReportContext& ctx) override;
};

}  // namespace tb
