#include <trainbench/support/json_input.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <trainbench/support/error.hpp>

namespace tb {

namespace {

// Longest library detail kept in a message; the rest is an excerpt of the input, not news.
constexpr std::size_t kMaxDetailChars = 200;

std::string cut(std::string s, std::size_t max_chars) {
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

std::string position(std::size_t line, std::size_t column) {
  return " (at line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
}

bool number_start(char c) { return c == '-' || (c >= '0' && c <= '9'); }
bool number_char(char c) { return number_start(c) || c == '+' || c == '.' || c == 'e' || c == 'E'; }
// Where JSON lets a value begin: after these, or at the start. A digit anywhere else is inside some
// other token: a bad literal, or a --set value that is a bare string ("/tmp/run-8e9332/x.py" is a
// path, not the number 8e9332).
bool value_may_follow(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '[' || c == '{' || c == ':' || c == ',';
}

}  // namespace

void check_json_bounds(const std::string& text, const std::string& source, const std::string& field) {
  // One pass, no recursion: brackets outside strings set the depth; numbers are checked with the
  // same conversion the parser uses, which it would otherwise report without a position.
  int depth = 0;
  bool in_string = false;
  std::size_t line = 1, column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      continue;
    }
    if (in_string) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
        ++column;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError(source, field,
                         "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep" + position(line, column));
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (number_start(c) && (i == 0 || value_may_follow(text[i - 1]))) {
      std::size_t end = i + 1;
      while (end < text.size() && number_char(text[end])) ++end;
      const std::string token = text.substr(i, end - i);
      if (!std::isfinite(std::strtod(token.c_str(), nullptr)))
        throw InputError(source, field,
                         "number " + cut(token, 40) + " is out of range (a double holds at most about 1.8e308)" +
                             position(line, column));
      column += end - i - 1;
      i = end - 1;
    }
  }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& source, const std::string& field) {
  check_json_bounds(text, source, field);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source, field, json_error_text(e));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source, field, "malformed JSON: " + json_error_text(e));
  }
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  // An ifstream opens a directory and fails only on the first read, with a libstdc++ message.
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "is a directory, not a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open " + what + ": " + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) text.append(buffer, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw InputError(path, "", "cannot read " + what);
  return parse_json_text(text, path);
}

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0) {
    const auto close = text.find("] ");
    if (close != std::string::npos) text = text.substr(close + 2);
  }
  if (text.rfind("parse error", 0) == 0) text = "malformed JSON" + text.substr(11);
  return cut(text, kMaxDetailChars);
}

}  // namespace tb
