// Self-contained offline HTML page: verdict line, charts (Chart.js inlined from the local
// libjs-chart.js install), scenario table with trace links, profiling and capacity sections and
// the environment. The run's chart data is embedded as a JSON <script> block (#tb-data). Without
// Chart.js the page still renders every table and says visibly why charts are missing.
#pragma once
#include <string>

#include <trainbench/reporters/reporter.hpp>

namespace tb {

class HtmlReporter final : public Reporter {
 public:
  // chartjs_path: Chart.js file to inline; empty means $TRAINBENCH_CHARTJS, else the path found
  // at configure time (TRAINBENCH_CHARTJS_PATH).
  explicit HtmlReporter(std::string chartjs_path = "");

  std::string name() const override { return "html"; }
  std::string default_file_name() const override { return "report.html"; }

  // The Chart.js path this reporter will try to inline.
  const std::string& chartjs_path() const { return chartjs_path_; }

  // The text of the #tb-data block, as embedded (safe inside <script>).
  static std::string data_block(const RunResult& run);

 private:
  void do_render(const RunResult& run, const ReportContext& ctx) override;
  std::string chartjs_path_;
};

}  // namespace tb
