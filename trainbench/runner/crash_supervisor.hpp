// A run that survives a crash inside LibTorch. A heap corruption in a oneDNN kernel (seen: the
// AVX2 1x1 convolution's weight gradient on channels-last input with few channels, LibTorch
// 2.11) or a segfault in a model kills the process that runs it, and with it every scenario of
// the matrix. So `run` measures in a child process and waits: when the child dies of a crash
// signal, the parent (which ran nothing) finishes the run from what the child had saved, with
// each scenario in its own worker (--isolate), so that the crash ends one scenario as "crashed"
// and the others are measured. The child costs nothing on the hot path: it is the run itself.
// A child that hangs instead (a deadlock, a loop on a corrupted heap) stays silent: it says
// "still going" between segments (liveness.hpp), and one silent longer than the hang timeout is
// killed (SIGKILL, its whole process group) and treated as crashed.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <trainbench/runner/child_process.hpp>

namespace tb {

// Signals that mean the child crashed (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSYS), as
// opposed to being stopped from outside (SIGINT, SIGTERM, SIGHUP, SIGKILL).
bool is_crash_signal(int signal);

struct SupervisedRun {
  // How the child ended; nullopt when this process is the child (run the body, return its code).
  std::optional<ChildExit> child_exit;
  int body_code = 0;  // the body's return value, in the child
};

// Runs `body` in a child made by fork() and waits for it. In the child, `body` runs and its
// return value is returned (child_exit empty): the caller returns it as it would have without
// supervision, so the child's exit is the body's. The child has a process group of its own and
// gets SIGTERM if the parent dies; the parent passes SIGINT, SIGTERM and SIGHUP on to it once
// (a Ctrl-C at the terminal reaches the parent only) and returns how the child ended.
// `hang_timeout_s` > 0: the child is killed when it gave no sign of progress (liveness.hpp) for
// that long; its ChildExit then has hung_after_s set. 0: it may take forever.
// Precondition: this process has one thread (fork() copies only the calling thread; a lock held
// by another one would stay locked in the child): see single_threaded(). std::runtime_error
// when fork fails.
SupervisedRun run_supervised(const std::function<int()>& body, double hang_timeout_s = 0);

// Ends this process by `signal` with its default action, as the child that was stopped from
// outside ended, so the shell (and a test waiting on it) sees the same status.
[[noreturn]] void end_like_child(int signal);

// Whether this process has exactly one thread now (/proc/self/task). Where it has more (a CUDA
// runtime started its threads), `run` is supervised by starting itself again instead of forking.
bool single_threaded();

// Starts argv (argv[0] a path) with `extra_env` ("NAME=value") added to this environment, its
// standard streams this process's, waits for it under the same signal rules as run_supervised,
// and returns how it ended; it hears of the child's progress through kLivenessFdVariable, which
// the child passes to set_liveness_fd_from_environment(). std::runtime_error when it cannot be
// started.
ChildExit spawn_supervised(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                           double hang_timeout_s = 0);

}  // namespace tb
