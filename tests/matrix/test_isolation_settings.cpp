// The matrix's "isolate" and test-only "test_crash" settings: read and checked with the other
// keys (a bad value names the file and the field), kept out of the digest, and the crash they
// plant kills the process the way its kind says.
#include <trainbench/matrix/isolation_settings.hpp>

#include <signal.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <unistd.h>

#include <trainbench/runner/test_crash.hpp>
#include <trainbench/support/error.hpp>

namespace tb {
namespace {

using nlohmann::json;

json matrix(json extra = json::object()) {
  json j = {{"name", "m"}, {"model", "mlp"}, {"device", "cpu"}, {"axes", {{"accumulation", {1, 2, 3}}}}};
  j.update(extra);
  return j;
}

void expect_refused(const json& j, const std::string& field, const std::string& message) {
  for (int how = 0; how < 2; ++how) {  // parse_matrix checks it like every key; so does the reader
    try {
      if (how == 0) parse_matrix(j, "m.json", {});
      else parse_isolation_settings(j, "m.json");
      ADD_FAILURE() << "accepted " << j.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "m.json");
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(IsolationSettings, DefaultsAndValues) {
  const auto none = parse_isolation_settings(matrix(), "m.json");
  EXPECT_FALSE(none.isolate);
  EXPECT_EQ(none.hang_timeout_s, kDefaultHangTimeoutS);
  EXPECT_EQ(parse_isolation_settings(matrix({{"hang_timeout_s", 2.5}}), "m.json").hang_timeout_s, 2.5);
  EXPECT_FALSE(none.test_crash.has_value());
  const auto s = parse_isolation_settings(
      matrix({{"isolate", true}, {"test_crash", {{"scenario", "/a2/"}, {"kind", "terminate"}, {"at_step", 4}}}}),
      "m.json");
  EXPECT_TRUE(s.isolate);
  ASSERT_TRUE(s.test_crash.has_value());
  EXPECT_EQ(s.test_crash->scenario, "/a2/");
  EXPECT_EQ(s.test_crash->kind, CrashKind::terminate);
  EXPECT_EQ(s.test_crash->at_step, 4);
  EXPECT_EQ(parse_isolation_settings(matrix({{"test_crash", {{"scenario", ""}, {"kind", "segv"}}}}), "m.json")
                .test_crash->at_step,
            0);
}

TEST(IsolationSettings, BadValuesNameTheField) {
  expect_refused(matrix({{"isolate", "yes"}}), "isolate", "must be true or false, got \"yes\"");
  expect_refused(matrix({{"test_crash", "segv"}}), "test_crash", "must be an object");
  expect_refused(matrix({{"test_crash", {{"kind", "segv"}}}}), "test_crash.scenario", "is required");
  expect_refused(matrix({{"test_crash", {{"scenario", "a2"}}}}), "test_crash.kind", "is required");
  expect_refused(matrix({{"test_crash", {{"scenario", "a2"}, {"kind", "boom"}}}}), "test_crash.kind",
                 "unknown crash kind 'boom' (allowed: segv, abort, terminate, hang)");
  expect_refused(matrix({{"hang_timeout_s", 0}}), "hang_timeout_s", "must be a number of seconds from 1 to 604800");
  expect_refused(matrix({{"hang_timeout_s", "10m"}}), "hang_timeout_s", "got \"10m\"");
  expect_refused(matrix({{"hang_timeout_s", 1e9}}), "hang_timeout_s", "(a week)");
  expect_refused(matrix({{"test_crash", {{"scenario", "a2"}, {"kind", "segv"}, {"at_step", -1}}}}),
                 "test_crash.at_step", "must be between 0 and 1100000, got -1");
  expect_refused(matrix({{"test_crash", {{"scenario", "a2"}, {"kind", "segv"}, {"at_step", 1.5}}}}),
                 "test_crash.at_step", "must be an integer, got 1.5");
  expect_refused(matrix({{"test_crash", {{"scenario", "a2"}, {"kind", "segv"}, {"when", 1}}}}), "test_crash.when",
                 "unknown key 'when' (allowed: scenario, kind, at_step)");
}

TEST(IsolationSettings, NotPartOfTheDigest) {
  const auto plain = parse_matrix(matrix(), "m.json", {});
  const auto isolated = parse_matrix(
      matrix({{"isolate", true}, {"hang_timeout_s", 30}, {"test_crash", {{"scenario", "a2"}, {"kind", "abort"}}}}),
      "m.json", {});
  EXPECT_EQ(scenarios_digest(expand(plain)), scenarios_digest(expand(isolated)));
}

TEST(IsolationSettings, SetOverridesApply) {
  const auto dir = std::filesystem::path(TB_BINARY_DIR) / "test-runs" / "isolation_settings";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "m.json").string();
  std::ofstream(path) << matrix().dump();
  const auto loaded = load_matrix_with_isolation(
      path, {}, {"isolate=true", R"(test_crash={"scenario": "a3", "kind": "abort", "at_step": 2})"});
  EXPECT_TRUE(loaded.isolation.isolate);
  ASSERT_TRUE(loaded.isolation.test_crash.has_value());
  EXPECT_EQ(loaded.isolation.test_crash->kind, CrashKind::abort);
  EXPECT_EQ(expand(loaded.spec).size(), 3u);
}

// Under AddressSanitizer (scripts/test-sanitize) a segmentation fault is caught, reported and
// turned into exit status 1 instead of the signal.
#if defined(__SANITIZE_ADDRESS__)
#define TB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TB_UNDER_ASAN 1
#endif
#endif

TEST(TestCrashDeathTest, EachKindDiesItsOwnWay) {
#if defined(TB_UNDER_ASAN)
  EXPECT_EXIT(crash_now(CrashKind::segv, "here"), ::testing::ExitedWithCode(1), "test_crash: segv here");
#else
  EXPECT_EXIT(crash_now(CrashKind::segv, "here"), ::testing::KilledBySignal(SIGSEGV), "test_crash: segv here");
#endif
  EXPECT_EXIT(crash_now(CrashKind::abort, "here"), ::testing::KilledBySignal(SIGABRT), "test_crash: abort here");
  EXPECT_EXIT(crash_now(CrashKind::terminate, "here"), ::testing::KilledBySignal(SIGABRT), "terminate called");
  // A hang never returns: only a kill from outside ends it (here an alarm in the dying child).
  EXPECT_EXIT(
      {
        ::alarm(1);
        crash_now(CrashKind::hang, "here");
      },
      ::testing::KilledBySignal(SIGALRM), "test_crash: hang here");
}

TEST(TestCrashDeathTest, HookFiresOnlyForItsScenarioAndStep) {
  const auto scenarios = expand(parse_matrix(matrix(), "m.json", {}));
  ASSERT_EQ(scenarios.size(), 3u);
  const auto hook = make_test_crash_hook({"/a2/", CrashKind::abort, 3});
  hook(scenarios[0], 3);  // a1: not this one
  hook(scenarios[1], 2);  // a2, an earlier step
  hook(scenarios[1], 4);  // a2, a later step: the crash is at step 3 only
  EXPECT_EXIT(hook(scenarios[1], 3), ::testing::KilledBySignal(SIGABRT),
              "test_crash: abort in scenario mlp/fp32/w0/a2/b32 before step 3");
}

}  // namespace
}  // namespace tb
