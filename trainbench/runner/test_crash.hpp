// Test-only crash injection (the matrix's "test_crash"): the process dies the way a bug in
// LibTorch, a model or a dataset would kill it (or hangs, as a deadlock would), so that `run
// --isolate` can be shown to turn such a death into one scenario's "crashed" status while the
// rest of the matrix goes on.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <trainbench/matrix/scenario.hpp>

namespace tb {

enum class CrashKind { segv, abort, terminate, hang };

const char* to_string(CrashKind kind);
const std::vector<std::string>& crash_kind_names();   // "segv", "abort", "terminate", "hang"
CrashKind parse_crash_kind(const std::string& name);  // one of crash_kind_names()

struct TestCrash {
  std::string scenario;  // crash the scenarios whose id contains this ("" : every scenario)
  CrashKind kind = CrashKind::segv;
  int at_step = 0;  // optimizer steps completed first, warm-up included
};

// Says on stderr what is about to happen, then dies: segv writes through a null pointer (signal
// 11, as a real wild pointer would), abort calls std::abort (signal 6), terminate calls
// std::terminate (signal 6 after the runtime's "terminate called ..." line on stderr), hang
// stops making progress for good, as a deadlock would (signals are handled, nothing returns):
// only the hang timeout's kill ends it (liveness.hpp).
[[noreturn]] void crash_now(CrashKind kind, const std::string& where);

// A RunOptions::test_hook that crashes the matching scenarios before step `at_step`. Steps
// before it cost one integer comparison: the scenario id is only built at that step.
std::function<void(const ScenarioParams&, int)> make_test_crash_hook(TestCrash crash);

}  // namespace tb
