// How much progress a run prints: --quiet (none), the default, or --verbose (-v). Shared by the
// commands that print progress (run, capacity), so they read and refuse them alike.
#pragma once
#include <optional>

#include <trainbench/cli/arg_parser.hpp>
#include <trainbench/cli/console_progress.hpp>

namespace tb::cli {

extern const Option kQuietOption;
extern const Option kVerboseOption;

// The console's detail; std::nullopt for --quiet (no progress listener at all). InputError (exit
// 2) naming both options when --quiet and --verbose are given together.
std::optional<Detail> progress_detail(const ParsedArgs& given);

}  // namespace tb::cli
