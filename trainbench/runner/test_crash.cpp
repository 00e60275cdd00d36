#include <trainbench/runner/test_crash.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

namespace tb {

const std::vector<std::string>& crash_kind_names() {
  static const std::vector<std::string> names = {"segv", "abort", "terminate", "hang"};
  return names;
}

const char* to_string(CrashKind kind) { return crash_kind_names()[static_cast<std::size_t>(kind)].c_str(); }

CrashKind parse_crash_kind(const std::string& name) {
  const auto& names = crash_kind_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<CrashKind>(i);
  throw std::invalid_argument("unknown crash kind '" + name + "'");
}

void crash_now(CrashKind kind, const std::string& where) {
  std::fprintf(stderr, "trainbench: test_crash: %s %s\n", to_string(kind), where.c_str());
  std::fflush(stderr);
  switch (kind) {
    case CrashKind::segv: {
      // volatile: the compiler must emit the store, so the fault is real, not optimized away.
      volatile int* volatile nowhere = nullptr;
      *nowhere = 1;
      break;
    }
    case CrashKind::abort: std::abort();
    case CrashKind::terminate: std::terminate();
    case CrashKind::hang:
      for (;;) ::pause();  // a signal's handler runs and returns here: still hung
  }
  std::abort();  // unreachable unless address 0 is writable
}

std::function<void(const ScenarioParams&, int)> make_test_crash_hook(TestCrash crash) {
  return [crash = std::move(crash)](const ScenarioParams& p, int step) {
    if (step != crash.at_step) return;
    const std::string id = scenario_id(p);
    if (id.find(crash.scenario) != std::string::npos)
      crash_now(crash.kind, "in scenario " + id + " before step " + std::to_string(step));
  };
}

}  // namespace tb
