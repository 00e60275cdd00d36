// The one way trainbench reads JSON a user hands it (matrix files, results.json, noise-floor
// files, --set values): nesting and numbers bounded before anything recurses over the value,
// and every problem an InputError in the project's words with the source and the position.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tb {

// Deeper values are refused: nlohmann's dump, copy and comparison recurse once per level, so a
// million nested arrays overflow the stack. Nothing trainbench reads needs more than a few levels.
inline constexpr int kMaxJsonDepth = 64;

// Throws InputError(source, field, ...) when `text` nests deeper than kMaxJsonDepth or holds a
// number outside the range of a double, naming the line and column. Never recurses.
void check_json_bounds(const std::string& text, const std::string& source, const std::string& field = "");

// check_json_bounds, then parse; a syntax error is "malformed JSON at line L, column C: ...".
nlohmann::json parse_json_text(const std::string& text, const std::string& source, const std::string& field = "");

// Reads and parses the file at `path`; `what` names it in messages ("matrix file"). A missing,
// unreadable or directory path is an InputError naming the path.
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// A JSON library exception's message in our words: without its "[json.exception.x.N]" tag, cut
// to a bounded length (the library quotes the offending token, which may be megabytes).
std::string json_error_text(const nlohmann::json::exception& e);

}  // namespace tb
