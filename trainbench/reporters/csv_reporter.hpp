// One row per scenario, every parameter and metric a column (RFC 4180: CRLF line ends, fields
// with commas, quotes or line breaks quoted, quotes doubled). Extra sections contribute their
// scalar fields (comparison, loss parity, capacity) as columns; absent values are empty.
#pragma once
#include <string>
#include <vector>

#include <trainbench/reporters/reporter.hpp>

namespace tb {

class CsvReporter final : public Reporter {
 public:
  std::string name() const override { return "csv"; }
  std::string default_file_name() const override { return "results.csv"; }

  // The header row, in column order.
  static const std::vector<std::string>& columns();
  // RFC 4180 quoting of one field.
  static std::string quote(const std::string& field);

 private:
  void do_render(const RunResult& run, const ReportContext& ctx) override;
};

}  // namespace tb
