#include <trainbench/cli/history_option.hpp>

#include <ostream>

namespace tb::cli {

Option history_path_option() {
  return {"--history", "PATH",
          "history database (default: $TRAINBENCH_HISTORY, else\n"
          "$XDG_DATA_HOME or ~/.local/share/trainbench/history.sqlite), or a\n"
          "postgresql://user@host/db server shared by many runners"};
}

Option history_db_alias_option() { return {"--db", "PATH", "the same as --history PATH (older spelling)"}; }

std::string history_path(const ParsedArgs& args, std::ostream& err) {
  const std::string flag = args.last_of({"--history", "--db"});
  const auto location = resolve_history_location(flag.empty() ? std::nullopt : args.value(flag));
  if (!location.note.empty()) err << location.note << '\n';
  return location.path;
}

}  // namespace tb::cli
