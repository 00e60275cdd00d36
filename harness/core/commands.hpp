// Entry points of the trainbench sub-commands that need no LibTorch. harness/main.cpp dispatches
// to these; each returns the process exit code. `args` excludes the program and command names.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace tb {

// trainbench report RESULTS [--format md,csv,html,gbench,console] [--out DIR]
int cmd_report(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench compare [--fail-on-regression PCT] [--allow-env-mismatch] [--aa] OLD NEW
// trainbench compare --against last|RUN_ID|GIT_REV [NEW]
int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench ab MATRIX --old BIN --new BIN [--fail-on-regression PCT] ...: two builds measured
// side by side in one interleaved session (ab_command.cpp)
int cmd_ab(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench history [--db PATH] [--scenario ID]
int cmd_history(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tb
