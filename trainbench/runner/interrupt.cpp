#include <trainbench/runner/interrupt.hpp>

#include <signal.h>

#include <atomic>

namespace tb {

namespace {

// Ctrl-C, a polite kill, and a terminal that went away (a closed window, a dropped SSH session):
// all three stop the run cleanly instead of losing the round in progress.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Only a lock-free atomic may be touched from a signal handler.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

void on_interrupt(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
  // The next signal takes the default action: a user who presses Ctrl-C twice (or an init
  // system that escalates) is never kept waiting for the clean stop.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (const int s : kSignals) sigaction(s, &dfl, nullptr);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // file writes and reads in progress go on; the flag is polled
  for (const int s : kSignals) sigaction(s, &sa, nullptr);
}

bool interrupted() { return g_signal.load(std::memory_order_relaxed) != 0; }

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

int interrupt_exit_code() {
  const int sig = interrupt_signal();
  return sig == 0 ? 0 : 128 + sig;
}

}  // namespace tb
