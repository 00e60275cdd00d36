#include <trainbench/support/text_file.hpp>

#include <fstream>
#include <sstream>

namespace tb {

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return os.str();
}

}  // namespace tb
