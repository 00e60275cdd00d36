// The history database of the commands that read it (compare --against, history): --history
// PATH, or its older spelling --db PATH, else the default of results/history_location.hpp.
#pragma once
#include <trainbench/cli/arg_parser.hpp>
#include <trainbench/results/history_location.hpp>

namespace tb::cli {

// The option table's entries, the same help text everywhere.
Option history_path_option();
Option history_db_alias_option();

// The location the command line chose, or the default; writes the location's note (if any) to
// `err` once.
std::string history_path(const ParsedArgs& args, std::ostream& err);

}  // namespace tb::cli
