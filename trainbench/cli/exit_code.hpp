// The exit codes of every trainbench command, in one place (docs/command-line.md#exit-codes).
#pragma once

namespace tb::cli {

enum class ExitCode : int {
  ok = 0,
  failure = 1,               // run: a scenario failed, ran out of memory, diverged or crashed;
                             // compare/ab: a regression, or a scenario broken or missing in NEW
  bad_input = 2,             // bad command line, matrix or results file; nothing comparable
  environment_mismatch = 3,  // compare: runs from different hardware (refused); merge: shards
                             // from different environments (refused)
  contended = 4,             // compare/ab: the gate refused to judge loaded measurements, or a
                             // scenario without an interval ("not judged")
  output_error = 5,          // an artefact could not be written (tb::OutputError)
};
// Besides these, a run stopped by a signal exits 128 + the signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP):
// trainbench/runner/interrupt.hpp interrupt_exit_code().

// The table above in words, for `trainbench --help`.
inline constexpr const char* kExitCodesHelp =
    "exit codes: 0 ok; 1 a scenario failed, ran out of memory, diverged or crashed (run), or a\n"
    "regression or a broken scenario (compare, ab); 2 bad input; 3 compare refused (different\n"
    "hardware) or merge refused (shards from different environments); 4 compare/ab refused to\n"
    "judge: contended measurements, or not judged (no interval: fewer than 3 segments); 5 an\n"
    "output (results, report, trace, history) could not be written: full disk, unwritable folder\n"
    "(the previous file is kept); 130/143/129 run interrupted by SIGINT/SIGTERM/SIGHUP (finish it\n"
    "with run --resume DIR)\n";

// Commands return plain ints, because of the 128 + signal codes.
constexpr int as_int(ExitCode code) { return static_cast<int>(code); }

}  // namespace tb::cli
