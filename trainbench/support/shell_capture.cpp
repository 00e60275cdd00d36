#include <trainbench/support/shell_capture.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace tb {

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

ShellCapture capture_shell(const std::string& command) {
  ShellCapture r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) r.out += buf.data();
  const int status = ::pclose(pipe);
  r.code = status < 0          ? -1
           : WIFEXITED(status) ? WEXITSTATUS(status)
                               : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == ' ')) r.out.pop_back();
  return r;
}

}  // namespace tb
