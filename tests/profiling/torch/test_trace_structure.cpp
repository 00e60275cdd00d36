// The traces a profiled run writes, as the PyTorch tools read them: a tiny matrix (MLP, one
// loader worker, fp32 and amp_bf16) run once with host trace and Kineto together. The Kineto
// trace (<scenario>.pt.trace.json) must hold one ProfilerStep#N per profiled step with the
// phase ranges nested in it and the loader thread named; the host trace must share its time
// base (its step spans lie on the Kineto steps); no spurious Kineto GPU-probe error on stderr;
// and diff-trace on the two precisions' real traces must name operators only bf16 runs or
// whose time changed.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/helpers/cli_test.hpp"

namespace {

using nlohmann::json;

constexpr int kWindow = 3;

class TraceStructure : public ::testing::Test {
 protected:
  // ctest runs every test in a process of its own (one at a time: the file's resource lock), so
  // the run is made once per build of trainbench and reused by the suite's other tests: the
  // stamp names the binary's size and time and the matrix, and anything else runs it again.
  static void SetUpTestSuite() {
    std::ostringstream matrix;
    matrix << R"({"name": "traces-test", "model": "mlp", "device": "cpu",
      "dataset_options": {"samples": 256, "features": 16}, "model_options": {"hidden": 32},
      "axes": {"precision": ["fp32", "amp_bf16"], "workers": 1, "batch": 32},
      "steps": {"warmup": 1, "min": 3, "max": 4, "target_rel_ci": 0.5, "time_budget_s": 1, "rounds": 1},
      "profile": {"enabled": true, "window": )"
           << kWindow << R"(, "host_trace": true, "kineto": true}})";
    const std::filesystem::path bin(TB_TRAINBENCH_BIN);
    const std::string stamp = std::to_string(std::filesystem::file_size(bin)) + " " +
                              std::to_string(std::filesystem::last_write_time(bin).time_since_epoch().count()) + "\n" +
                              matrix.str();
    dir_ = new std::filesystem::path(std::filesystem::path(TB_BINARY_DIR) / "test-runs" / "TraceStructure");
    if (tb::test::slurp(*dir_ / "stamp.txt") == stamp && std::filesystem::exists(*dir_ / "rc.txt")) {
      rc_ = std::stoi(tb::test::slurp(*dir_ / "rc.txt"));
      return;
    }
    tb::test::scratch_dir("TraceStructure");
    std::ofstream(*dir_ / "m.json") << matrix.str();
    rc_ = tb::test::run_shell("ulimit -c 0; OMP_NUM_THREADS=1 " + bin.string() + " run " + (*dir_ / "m.json").string() +
                              " --out " + (*dir_ / "out").string() + " --no-history --format md > " +
                              (*dir_ / "stdout.txt").string() + " 2> " + (*dir_ / "stderr.txt").string());
    std::ofstream(*dir_ / "rc.txt") << rc_;
    std::ofstream(*dir_ / "stamp.txt") << stamp;
  }
  static void TearDownTestSuite() { delete dir_; }

  void SetUp() override {
    ASSERT_EQ(rc_, 0) << tb::test::slurp(*dir_ / "stdout.txt") << tb::test::slurp(*dir_ / "stderr.txt");
  }

  static json profile_of(const std::string& id) {
    const auto results = json::parse(tb::test::slurp(*dir_ / "out" / "results.json"));
    for (const auto& s : results["scenarios"])
      if (s["id"] == id) return s["extra"]["profile"];
    ADD_FAILURE() << "no scenario " << id;
    return json::object();
  }
  static json trace(const std::string& id, const std::string& kind) {
    const json traces = profile_of(id)["traces"];
    EXPECT_TRUE(traces.contains(kind)) << traces.dump();
    return json::parse(tb::test::slurp(*dir_ / "out" / traces.value(kind, std::string("missing"))));
  }

  static inline std::filesystem::path* dir_ = nullptr;
  static inline int rc_ = -1;
};

struct Range {
  std::string name;
  json tid;
  double begin, end;
};

std::vector<Range> ranges(const json& t, const std::string& cat) {
  std::vector<Range> out;
  for (const auto& e : t["traceEvents"])
    if (e.value("ph", "") == "X" && e.value("cat", "") == cat)
      out.push_back({e["name"], e["tid"], e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
  return out;
}

std::set<std::string> thread_names(const json& t) {
  std::set<std::string> names;
  for (const auto& e : t["traceEvents"])
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
      names.insert(e["args"]["name"].get<std::string>());
  return names;
}

bool any_contains(const std::set<std::string>& names, const std::string& part) {
  for (const auto& n : names)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

TEST_F(TraceStructure, KinetoTraceNamedForTensorBoard) {
  const std::string path = profile_of("mlp/fp32/w1/a1/b32")["traces"]["kineto"];
  EXPECT_TRUE(path.ends_with(".pt.trace.json")) << path;
}

TEST_F(TraceStructure, KinetoStepsHoldThePhaseRanges) {
  const json t = trace("mlp/fp32/w1/a1/b32", "kineto");
  std::vector<Range> steps;
  std::vector<Range> phases;
  for (auto& r : ranges(t, "user_annotation")) (r.name.rfind("ProfilerStep#", 0) == 0 ? steps : phases).push_back(r);
  // The data wait is an operator-category range, the only kind torch-tb-profiler counts as DataLoader.
  for (auto& r : ranges(t, "cpu_op"))
    if (r.name.rfind("enumerate(DataLoader)#", 0) == 0) phases.push_back(r);
  ASSERT_EQ(steps.size(), static_cast<std::size_t>(kWindow));
  std::set<std::string> step_names;
  for (const auto& s : steps) step_names.insert(s.name);
  EXPECT_TRUE(step_names.count("ProfilerStep#0") && step_names.count("ProfilerStep#2"));

  // Every phase of every step, inside that step on the same thread.
  const std::vector<std::string> expected = {"enumerate(DataLoader)#trainbench.data_wait.__next__", "trainbench.h2d",
                                             "trainbench.forward", "trainbench.backward",
                                             "Optimizer.step#trainbench.optimizer.step"};
  for (const auto& s : steps) {
    for (const auto& name : expected) {
      int inside = 0;
      for (const auto& p : phases)
        if (p.name == name && p.tid == s.tid && p.begin >= s.begin && p.end <= s.end + 0.01) ++inside;
      EXPECT_EQ(inside, 1) << name << " in " << s.name;
    }
  }
  // Operators ran inside the forward range.
  int ops_in_forward = 0;
  for (const auto& op : ranges(t, "cpu_op"))
    for (const auto& p : phases)
      if (p.name == "trainbench.forward" && op.tid == p.tid && op.begin >= p.begin && op.end <= p.end + 0.01)
        ++ops_in_forward;
  EXPECT_GT(ops_in_forward, 0);
}

// Holistic Trace Analysis reads each trace's rank from here (it warns and assumes 0 without).
TEST_F(TraceStructure, KinetoTraceCarriesDistributedInfo) {
  const json info = trace("mlp/fp32/w1/a1/b32", "kineto").value("distributedInfo", json::object());
  EXPECT_EQ(info.value("rank", -1), 0) << info.dump();
  EXPECT_EQ(info.value("world_size", -1), 1) << info.dump();
}

TEST_F(TraceStructure, LoaderThreadNamedInBothTraces) {
  EXPECT_TRUE(any_contains(thread_names(trace("mlp/fp32/w1/a1/b32", "kineto")), "loader-"))
      << "Kineto reads the OS thread name";
  EXPECT_TRUE(any_contains(thread_names(trace("mlp/fp32/w1/a1/b32", "host")), "loader-"));
}

TEST_F(TraceStructure, HostTraceSharesTheKinetoTimeBase) {
  const json kineto = trace("mlp/fp32/w1/a1/b32", "kineto");
  const json host = trace("mlp/fp32/w1/a1/b32", "host");
  ASSERT_TRUE(kineto.contains("baseTimeNanoseconds"));
  ASSERT_TRUE(host.contains("baseTimeNanoseconds"));
  EXPECT_EQ(host["baseTimeNanoseconds"], kineto["baseTimeNanoseconds"]);
  std::vector<Range> kineto_steps;
  for (const auto& r : ranges(kineto, "user_annotation"))
    if (r.name.rfind("ProfilerStep#", 0) == 0) kineto_steps.push_back(r);
  const auto host_steps = ranges(host, "step");
  ASSERT_EQ(host_steps.size(), static_cast<std::size_t>(kWindow));
  // Each host step span lies inside exactly one ProfilerStep: the ProfilerStep opens just before
  // the trainer's step and closes just after it (a few microseconds here). 50 us allows for the
  // clock conversion; steps are disjoint, so no host step fits in two.
  constexpr double kSlackUs = 50;
  for (const auto& h : host_steps) {
    int holders = 0;
    for (const auto& k : kineto_steps)
      if (k.begin - kSlackUs <= h.begin && h.end <= k.end + kSlackUs) ++holders;
    EXPECT_EQ(holders, 1) << "host step at " << h.begin << " us";
  }
}

TEST_F(TraceStructure, NoSpuriousKinetoErrorOnTheCpu) {
  const std::string err = tb::test::slurp(*dir_ / "stderr.txt");
  EXPECT_EQ(err.find("gpuGetDeviceCount"), std::string::npos) << err;
}

TEST_F(TraceStructure, DiffTraceOfRealFp32AndBf16Traces) {
  const auto out_dir = *dir_ / "out";
  const std::string a = (out_dir / profile_of("mlp/fp32/w1/a1/b32")["traces"]["kineto"].get<std::string>()).string();
  const std::string b =
      (out_dir / profile_of("mlp/amp_bf16/w1/a1/b32")["traces"]["kineto"].get<std::string>()).string();
  const auto json_out = *dir_ / "diff.json";
  ASSERT_EQ(tb::test::run_shell(std::string(TB_TRAINBENCH_BIN) + " diff-trace " + a + " " + b + " --json --top 50 > " +
                                json_out.string()),
            0);
  const json diff = json::parse(tb::test::slurp(json_out));
  EXPECT_EQ(diff["old"]["steps"], kWindow);
  std::set<std::string> added, changed_time;
  std::set<std::string> phases;
  for (const auto& p : diff["phases"]) {
    phases.insert(p["phase"].get<std::string>());
    for (const auto& op : p["added"]) added.insert(op["name"].get<std::string>());
    for (const auto& op : p["changed"])
      if (op["self_change_us"].get<double>() != 0) changed_time.insert(op["name"].get<std::string>());
  }
  EXPECT_TRUE(phases.count("forward") && phases.count("backward")) << diff.dump(1).substr(0, 2000);
  // Autocast to bfloat16 casts: ops only the bf16 step runs.
  EXPECT_TRUE(added.count("aten::to") || added.count("aten::_to_copy") ||
              added.count("aten::_autocast_to_reduced_precision"))
      << diff.dump(1).substr(0, 4000);
  EXPECT_FALSE(changed_time.empty());
  // The text form names the same operators.
  const auto text_out = *dir_ / "diff.txt";
  ASSERT_EQ(
      tb::test::run_shell(std::string(TB_TRAINBENCH_BIN) + " diff-trace " + a + " " + b + " > " + text_out.string()),
      0);
  EXPECT_NE(tb::test::slurp(text_out).find("phase forward"), std::string::npos);
}

}  // namespace
