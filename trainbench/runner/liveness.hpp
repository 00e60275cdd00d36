// A run's sign of life for the process that supervises it (crash_supervisor.hpp). A crash ends a
// process; a hang does not: a deadlock, or a loop on a corrupted heap (seen: LibTorch 2.11's
// oneDNN AVX2 1x1 convolution writes past its buffer on channels-last input, and the process
// either aborts or hangs), leaves the run waiting forever, and a CI job with it. So the run says
// "still going" at points it passes often (the start of every segment, every finish, every
// capacity probe), and the supervisor kills a child that stayed silent longer than the matrix's
// hang_timeout_s. The sign is one byte written to a pipe the supervisor made: between segments,
// never on the training step's hot path, and it never blocks (a full pipe already says enough).
#pragma once

namespace tb {

// The environment variable that hands the pipe's write end to a supervised child started with
// exec (a forked child is told with set_liveness_fd).
inline constexpr const char* kLivenessFdVariable = "TRAINBENCH_LIVENESS_FD";

// From now on signal_progress() writes to `fd` (a pipe's non-blocking write end); -1: nowhere.
void set_liveness_fd(int fd);
// set_liveness_fd from kLivenessFdVariable when it names an open descriptor; else nothing.
void set_liveness_fd_from_environment();
// Says "still going" to the supervisor, if there is one: one write(2), never blocking.
void signal_progress();

}  // namespace tb
