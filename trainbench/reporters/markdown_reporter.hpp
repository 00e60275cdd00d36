// GitHub-flavoured Markdown sized for a pull-request comment: the verdict line comes first
// (geomean speedup, status counts, warnings), then the warnings list, then the table, then the
// environment folded in a <details> block.
#pragma once
#include <trainbench/reporters/reporter.hpp>

namespace tb {

class MarkdownReporter final : public Reporter {
 public:
  std::string name() const override { return "md"; }
  std::string default_file_name() const override { return "report.md"; }

 private:
  void do_render(const RunResult& run, const ReportContext& ctx) override;
};

}  // namespace tb
