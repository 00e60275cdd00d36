// Where the history database lives when no command-line option names it: one file per user, so
// that `trainbench compare --against last` finds the same history from any folder (a path
// relative to the working directory would find nothing from another one):
//
//   1. the command line's --history PATH (`--db PATH` is its older spelling),
//   2. $TRAINBENCH_HISTORY,
//   3. ./results/history.sqlite when that file exists and the per-user default does not yet (a
//      history recorded in the working directory is kept, not silently replaced; a note says so),
//   4. $XDG_DATA_HOME/trainbench/history.sqlite, else ~/.local/share/trainbench/history.sqlite,
//   5. ./results/history.sqlite when neither XDG_DATA_HOME nor HOME is set.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace tb {

// The environment the choice depends on (tests pass their own; empty strings count as unset).
struct HistoryEnvironment {
  std::string trainbench_history;  // $TRAINBENCH_HISTORY
  std::string xdg_data_home;       // $XDG_DATA_HOME
  std::string home;                // $HOME
  std::filesystem::path working_dir;

  static HistoryEnvironment current();  // the process's environment and working directory
};

struct HistoryLocation {
  std::string path;
  // One line for the user when the choice is not the documented default (the old relative file
  // kept), else "".
  std::string note;
};

// The older, working-directory-relative location, still read when it is the only history.
inline constexpr const char* kLegacyHistoryPath = "results/history.sqlite";

// `option`: the command line's --history / --db value, when given.
HistoryLocation resolve_history_location(const std::optional<std::string>& option,
                                         const HistoryEnvironment& env = HistoryEnvironment::current());

// The per-user default of step 4 (or 5), whatever exists on disk.
std::string default_history_path(const HistoryEnvironment& env);

}  // namespace tb
