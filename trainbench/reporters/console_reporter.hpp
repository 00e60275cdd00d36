// Fixed-width text table for terminals (google/benchmark's ConsoleReporter, nvbench's markdown
// printer): one row per scenario, then the reasons for skipped/failed/oom scenarios, loss-parity
// warnings and the geomean line.
#pragma once
#include <trainbench/reporters/reporter.hpp>

namespace tb {

class ConsoleReporter final : public Reporter {
 public:
  std::string name() const override { return "console"; }
  std::string default_file_name() const override { return "report.txt"; }

 private:
  void do_render(const RunResult& run, const ReportContext& ctx) override;
};

}  // namespace tb
