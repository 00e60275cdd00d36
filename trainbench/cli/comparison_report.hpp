// How a run-vs-run comparison is shown and judged on the command line: the table `compare` and
// `ab` print, and the exit code of their CI gate.
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include <trainbench/measure/comparison.hpp>

namespace tb::cli {

// Scenario rows (old and new typical step time, change, speedup with its 95% interval, verdict,
// gate flags), the summary line, and notes: scenarios moving together between unpaired runs,
// scenarios only on one side, contention, regressions and broken scenarios.
void print_comparison_table(const RunComparison& c, std::ostream& out);

// `compare --aa` / `ab --aa`: the noise floor of an A/A comparison (make_noise_floor: throws
// ImplausibleNoise), with where it came from, saved to `path`.
void write_aa_noise_floor(const RunComparison& aa, const RunResult& new_run, const std::string& old_location,
                          const std::string& new_location, const std::string& path);

// The gate's answer for `c` (compared at least one scenario): broken or regression -> 1,
// contended -> 4, else 0. Says why on `err`, prefixed with `who` ("trainbench compare").
int gate_exit_code(const RunComparison& c, const std::string& who, std::ostream& err);

// The CI-facing files of a comparison: --junit PATH (JUnit XML), --markdown PATH (the Markdown
// summary, reporters/comparison_markdown.hpp), and, when $GITHUB_STEP_SUMMARY names a file (a
// GitHub Actions step), the Markdown summary appended to it. `who`: "trainbench compare".
// OutputError when one cannot be written.
struct CiOutputs {
  std::string junit_path, markdown_path;
  std::optional<double> gate_pct;  // --fail-on-regression
};
void write_ci_outputs(const RunComparison& c, const std::string& who, const CiOutputs& outputs);

}  // namespace tb::cli
