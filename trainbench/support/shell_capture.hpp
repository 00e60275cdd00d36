// Running a shell command for its output: git for the code under test and bisect's worktrees,
// nvidia-smi for the environment. One helper, so quoting and exit codes are read one way.
#pragma once
#include <string>

namespace tb {

// `s` as one word for sh: in single quotes, a quote inside written '\''.
std::string shell_quoted(const std::string& s);

struct ShellCapture {
  int code = -1;    // the exit code; 128 + N when killed by signal N; -1 when it could not start
  std::string out;  // its standard output, trailing newlines and blanks cut
  bool ok() const { return code == 0; }
};

// Runs `command` with sh (its stderr is this process's, unless the command redirects it) and
// waits for it.
ShellCapture capture_shell(const std::string& command);

}  // namespace tb
