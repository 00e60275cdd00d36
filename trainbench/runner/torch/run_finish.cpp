#include <trainbench/runner/torch/run_finish.hpp>

#include <exception>
#include <filesystem>

#include <trainbench/measure/comparison.hpp>
#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/history.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

void finish_run(RunResult& run, const RunOptions& options) {
  namespace fs = std::filesystem;
  RunListener* listener = options.listener;
  auto warn = [&](const std::string& what, const std::exception& e) {
    if (listener) listener->warning(what + ": " + e.what());
  };
  // An artefact that cannot be written (full disk) does not stop the others: the history keeps
  // the whole run even when results.json cannot be replaced. The first such failure is rethrown
  // at the end, so the CLI exits 5 (trainbench/cli/exit_code.hpp) instead of 0 (or 2, bad input).
  std::exception_ptr output_failure;
  auto output_failed = [&](const std::string& what, const OutputError& e) {
    if (output_failure) warn(what, e);
    else output_failure = std::current_exception();
  };
  try {
    annotate_run(run);
  } catch (const std::exception& e) { warn("comparison failed", e); }
  bool results_saved = false;
  if (!options.out_dir.empty()) {
    const auto results_path = (fs::path(options.out_dir) / "results.json").string();
    try {
      save_results(run, results_path);
      results_saved = true;
    } catch (const OutputError& e) { output_failed("saving results", e); }
    try {
      const auto written = write_reports(run, options.out_dir, options.formats, options.out_dir);
      if (listener && !written.empty()) {
        std::string line = "reports:";
        for (const auto& w : written) line += " " + w;
        listener->message(line + "\n");
      }
    } catch (const OutputError& e) { output_failed("writing reports failed", e); } catch (const std::exception& e) {
      warn("writing reports failed", e);
    }
    if (!options.history_db.empty()) {
      try {
        History history(options.history_db);
        history.record(run, results_path);
        if (listener) listener->message("history: recorded run " + run.run_id + " in " + history.path() + "\n");
      } catch (const OutputError& e) { output_failed("recording history failed", e); } catch (const std::exception& e) {
        warn("recording history failed", e);
      }
    }
  }
  if (listener) listener->run_finished(run, results_saved ? (fs::path(options.out_dir) / "results.json").string() : "");
  if (output_failure) std::rethrow_exception(output_failure);
}

}  // namespace tb
