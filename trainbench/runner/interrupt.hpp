// Ctrl-C, SIGTERM and SIGHUP (the terminal went away) during a run: the first one only raises a flag, which the run checks between
// training steps and segments, so it can stop cleanly, save what was measured and say how to
// resume; a second one ends the process at once (the default action is back in place).
#pragma once
#include <stdexcept>

namespace tb {

// Installs the SIGINT, SIGTERM and SIGHUP handlers. The handler is async-signal-safe: it stores
// the signal number in a lock-free atomic and restores the default action for all three.
void install_interrupt_handlers();

// True once SIGINT, SIGTERM or SIGHUP arrived (a relaxed atomic load: cheap enough between steps).
bool interrupted();
// The signal that interrupted the run, 0 when none.
int interrupt_signal();
// 128 + the signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), the shell's convention; 0 when none.
int interrupt_exit_code();

// Thrown between training steps once interrupted() holds; the step loop has already dropped
// the unfinished segment, so nothing half-measured is ever recorded.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace tb
