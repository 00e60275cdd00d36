#include "harness/torch/run_finish.hpp"

#include <filesystem>

#include "harness/core/comparison.hpp"
#include "harness/core/history.hpp"
#include "reporters/reporter.hpp"

namespace tb {

void finish_run(RunResult& run, const RunOptions& options) {
  namespace fs = std::filesystem;
  std::ostream* out = options.progress;
  auto warn = [&](const std::string& what, const std::exception& e) {
    if (out) *out << "trainbench: warning: " << what << ": " << e.what() << "\n";
  };
  try {
    annotate_run(run);
  } catch (const std::exception& e) {
    warn("comparison failed", e);
  }
  if (!options.out_dir.empty()) {
    const auto results_path = (fs::path(options.out_dir) / "results.json").string();
    save_results(run, results_path);
    try {
      const auto written = write_reports(run, options.out_dir, options.formats, options.out_dir);
      if (out && !written.empty()) {
        *out << "reports:";
        for (const auto& w : written) *out << " " << w;
        *out << "\n";
      }
    } catch (const std::exception& e) {
      warn("writing reports failed", e);
    }
    if (!options.history_db.empty()) {
      try {
        History history(options.history_db);
        history.record(run, results_path);
        if (out) *out << "history: recorded run " << run.run_id << " in " << options.history_db << "\n";
      } catch (const std::exception& e) {
        warn("recording history failed", e);
      }
    }
  }
  if (out) {
    *out << "\n";
    make_reporter("console")->render(run, ReportContext{out, options.out_dir, options.out_dir});
    if (!options.out_dir.empty())
      *out << "results: " << (fs::path(options.out_dir) / "results.json").string() << "\n";
  }
}

}  // namespace tb
