// A child process spoken to in lines: its stdin and stdout are pipes to this process; its stderr
// is this process's stderr (so its errors reach the user unchanged) or, when asked, a file (so a
// caller can quote the last words of a child that crashed). The A/B session (`trainbench ab`)
// drives two trainbench workers this way, `run --isolate` one worker per scenario.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tb {

// How a child ended: exited with a code, or killed by a signal.
struct ChildExit {
  bool exited = false;
  int code = 0;    // when exited
  int signal = 0;  // when killed
  // > 0: killed by this process after that many seconds without a sign of progress (a hang).
  double hung_after_s = 0;
  // "exit code 2", "signal 11 (Segmentation fault)", "signal 9 (Killed) after 120 s without
  // progress (a hang: the matrix's hang_timeout_s)"
  std::string describe() const;
  static ChildExit from_wait_status(int status);  // waitpid's status
};

struct ChildOptions {
  // Non-empty: the child's stderr goes to this file (created or truncated) instead of ours. A
  // file, not a pipe: a child that writes a lot can never block on it while we wait for a line.
  std::string stderr_path;
  // The child gets its own process group, so a Ctrl-C at the terminal reaches this process only
  // (which decides what happens to its children), and it is killed (SIGKILL) when this process
  // dies, so no child outlives a parent that crashed or was killed (strictly: when the thread
  // that started it ends, so start such children from a thread that lives as long as they do).
  bool detach_from_terminal_signals = false;
  // "NAME=value" entries for the child's environment, on top of this process's (each replaces a
  // variable of that name): the child's settings never change this process's own environment.
  std::vector<std::string> environment;
};

// This process's environment ("NAME=value" each) with `overrides` set on top of it: an override
// replaces the variable of its name, or is added.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides);

class ChildProcess {
 public:
  // Starts argv[0] (a path, or a name looked up on PATH) with `argv`. std::runtime_error when it
  // cannot be started (the message names the program and the reason).
  explicit ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options = {});
  // Closes the pipes, then kills (SIGKILL) and reaps a child still running: a parent that gives up
  // leaves no orphan behind.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes `line` and a newline; false when the child has closed its stdin (it exited).
  bool write_line(const std::string& line);
  // The next line without its newline; nullopt at end of file (the child exited or closed stdout).
  // With `give_up`, it is asked every 100 ms while no data comes, and nullopt is returned as
  // soon as it says true (a Ctrl-C in the parent must not wait for the child's reply).
  std::optional<std::string> read_line(const std::function<bool()>& give_up = {});
  // Closes the child's stdin (it sees end of file), then waits for it to exit.
  ChildExit wait();

  pid_t pid() const { return pid_; }
  const std::string& program() const { return program_; }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;    // write end of the child's stdin
  int from_child_ = -1;  // read end of the child's stdout
  std::string program_;
  std::string buffer_;  // read but not yet returned
  std::optional<ChildExit> exit_;
};

}  // namespace tb
