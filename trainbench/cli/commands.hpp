// The trainbench sub-commands that need no LibTorch. Each has a Command (its option table and
// handler; cli/torch/main.cpp dispatches through them) and a cmd_* entry point that parses
// `args` (without the program and command names) and returns the process exit code.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <trainbench/cli/command.hpp>

namespace tb::cli {

// trainbench report RESULTS [--format md,csv,html,gbench,console] [--out DIR]
const Command& report_command();
int cmd_report(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench compare [options] OLD NEW | --against last|RUN_ID|GIT_REV [NEW]
const Command& compare_command();
int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench ab MATRIX --old BIN --new BIN [options]: two builds measured side by side in one
// interleaved session
const Command& ab_command();
int cmd_ab(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench bisect GOOD BAD --matrix PATH --build CMD --binary PATH: the commit that made it slower
const Command& bisect_command();
int cmd_bisect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench merge DIR... --out DIR [options]: the shards of one matrix (run --shard i/n) as one run
const Command& merge_command();
int cmd_merge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench history [--db PATH] [--scenario ID] [--limit N] | --record RESULTS
const Command& history_command();
int cmd_history(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// trainbench diff-trace OLD NEW [--top N] [--json]: operator-level changes between two traces
const Command& diff_trace_command();
int cmd_diff_trace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tb::cli
