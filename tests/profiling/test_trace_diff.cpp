// trace_diff on small hand-written Kineto-shaped traces: phase attribution by the enclosing
// record-function range, self time, per-step figures, kernels by their launch's phase, the diff's
// added / removed / changed lists, the diff-trace command, and malformed traces named in errors.
#include <trainbench/profiling/trace_diff.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <trainbench/cli/commands.hpp>
#include <trainbench/support/error.hpp>

#include "tests/helpers/scratch_dir.hpp"

namespace {

using nlohmann::json;
namespace tbp = tb::profiling;

json x(const std::string& cat, const std::string& name, double ts, double dur, int tid = 1,
       json args = json::object()) {
  return {{"ph", "X"},  {"cat", cat}, {"name", name}, {"pid", 7},
          {"tid", tid}, {"ts", ts},   {"dur", dur},   {"args", args}};
}

// One step as trace_ranges.hpp lays it out: ProfilerStep#i > phase ranges > operators.
// `bf16`: forward also casts (aten::to), and addmm is faster.
void add_step(json& events, int i, bool bf16) {
  const double t = 1000.0 * i;
  events.push_back(x("user_annotation", "ProfilerStep#" + std::to_string(i), t, 900));
  events.push_back(x("cpu_op", "enumerate(DataLoader)#trainbench.data_wait.__next__", t + 1, 50));
  events.push_back(x("cpu_op", "aten::empty", t + 2, 5));  // inside the data wait
  events.push_back(x("user_annotation", "trainbench.forward", t + 100, 300));
  events.push_back(x("cpu_op", "aten::linear", t + 110, 200));  // self 200 - 150 = 50
  events.push_back(x("cpu_op", "aten::addmm", t + 120, bf16 ? 100 : 150));
  if (bf16) events.push_back(x("cpu_op", "aten::to", t + 250, 40));
  events.push_back(x("cuda_runtime", "cudaLaunchKernel", t + 130, 5, 1, {{"correlation", 10 + i}}));
  events.push_back(x("kernel", "gemm_kernel", t + 140, 30, 99, {{"correlation", 10 + i}}));
  events.push_back(x("user_annotation", "trainbench.backward", t + 400, 300));
  if (!bf16) events.push_back(x("cpu_op", "aten::mm", t + 410, 80));
  events.push_back(x("user_annotation", "Optimizer.step#trainbench.optimizer.step", t + 700, 100));
  events.push_back(x("cpu_op", "aten::add_", t + 710, 10));
  events.push_back(x("cpu_op", "aten::stack", t + 20, 10, 2));  // a loader thread, outside every range
  events.push_back(x("cpu_op", "aten::zero_", t + 905, 2));     // main thread, between steps
}

json make_trace(int steps, bool bf16) {
  json events = json::array();
  events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 7}, {"tid", 2}, {"args", {{"name", "loader-0"}}}});
  for (int i = 0; i < steps; ++i) add_step(events, i, bf16);
  return {{"schemaVersion", 1}, {"baseTimeNanoseconds", 1000}, {"traceEvents", events}};
}

std::string write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

const tbp::OpFigures& at(const tbp::TraceProfile& p, const std::string& phase, const std::string& name,
                         const std::string& kind = "op") {
  const auto it = p.ops.find(tbp::TraceOpKey{phase, kind, name});
  if (it == p.ops.end()) throw std::runtime_error("no " + kind + " " + name + " in phase " + phase);
  return it->second;
}

TEST(TraceDiff, AttributesOperatorsToPhasesWithSelfTimePerStep) {
  const auto p = tbp::profile_trace(make_trace(2, false), "a.json");
  EXPECT_EQ(p.steps, 2);
  EXPECT_DOUBLE_EQ(at(p, "forward", "aten::linear").count, 1.0);  // 2 calls over 2 steps
  EXPECT_DOUBLE_EQ(at(p, "forward", "aten::linear").total_us, 200.0);
  EXPECT_DOUBLE_EQ(at(p, "forward", "aten::linear").self_us, 50.0);  // minus addmm
  EXPECT_DOUBLE_EQ(at(p, "forward", "aten::addmm").self_us, 150.0);
  EXPECT_DOUBLE_EQ(at(p, "backward", "aten::mm").self_us, 80.0);
  EXPECT_DOUBLE_EQ(at(p, "optimizer", "aten::add_").count, 1.0);
  EXPECT_DOUBLE_EQ(at(p, "data_wait", "aten::empty").count, 1.0);  // under the DataLoader range (a cpu_op)
  EXPECT_DOUBLE_EQ(at(p, "loader", "aten::stack").count, 1.0);     // on the thread named loader-0
  EXPECT_DOUBLE_EQ(at(p, "(no phase)", "aten::zero_").count, 1.0);
  // The kernel has no host parent; it takes its launch's phase through the correlation id.
  EXPECT_DOUBLE_EQ(at(p, "forward", "gemm_kernel", "kernel").self_us, 30.0);
  // Ranges and runtime calls are structure, not operators.
  for (const auto& [key, f] : p.ops) {
    EXPECT_NE(key.name.rfind("ProfilerStep#", 0), 0u) << key.name;
    EXPECT_NE(key.name, "cudaLaunchKernel");
  }
}

TEST(TraceDiff, ReportsAddedRemovedAndChangedPerPhase) {
  const auto diff = tbp::diff_traces(tbp::profile_trace(make_trace(2, false), "fp32.json"),
                                     tbp::profile_trace(make_trace(3, true), "bf16.json"));
  EXPECT_EQ(diff.old_steps, 2);
  EXPECT_EQ(diff.new_steps, 3);
  ASSERT_FALSE(diff.phases.empty());
  std::vector<std::string> order;
  for (const auto& p : diff.phases) order.push_back(p.phase);
  // Step order, not alphabetical (phases without operators would be left out).
  EXPECT_EQ(order, (std::vector<std::string>{"data_wait", "forward", "backward", "optimizer", "loader", "(no phase)"}));
  const tbp::PhaseDiff* forward = nullptr;
  const tbp::PhaseDiff* backward = nullptr;
  for (const auto& p : diff.phases) {
    if (p.phase == "forward") forward = &p;
    if (p.phase == "backward") backward = &p;
  }
  ASSERT_NE(forward, nullptr);
  ASSERT_NE(backward, nullptr);
  ASSERT_EQ(forward->added.size(), 1u);
  EXPECT_EQ(forward->added[0].key.name, "aten::to");
  EXPECT_DOUBLE_EQ(forward->added[0].new_figures.count, 1.0);  // per step despite 3 steps vs 2
  ASSERT_EQ(backward->removed.size(), 1u);
  EXPECT_EQ(backward->removed[0].key.name, "aten::mm");
  ASSERT_FALSE(forward->changed.empty());
  EXPECT_EQ(forward->changed[0].key.name, "aten::addmm");  // the largest self-time change
  EXPECT_DOUBLE_EQ(forward->changed[0].self_change_us(), -50.0);
  for (const auto& c : forward->changed) EXPECT_NE(c.key.name, "gemm_kernel") << "unchanged, not listed";

  const auto top = tbp::largest_changes(diff, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].key.name, "aten::mm");  // 80 us gone
  EXPECT_NE(tbp::describe_change(top[0]).find("removed"), std::string::npos);
}

TEST(TraceDiff, CommandPrintsTextAndJson) {
  const auto dir = tb::test::scratch_dir("TraceDiff.Command");
  const auto a = write(dir, "a.pt.trace.json", make_trace(2, false).dump());
  const auto b = write(dir, "b.pt.trace.json", make_trace(2, true).dump());
  std::ostringstream out, err;
  ASSERT_EQ(tb::cli::cmd_diff_trace({a, b, "--top", "3"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("phase forward"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("added    aten::to (op, forward)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("removed  aten::mm (op, backward)"), std::string::npos) << out.str();

  std::ostringstream jout;
  ASSERT_EQ(tb::cli::cmd_diff_trace({a, b, "--json"}, jout, err), 0) << err.str();
  const auto j = json::parse(jout.str());
  EXPECT_TRUE(j["per_step"].get<bool>());
  bool saw_to = false;
  for (const auto& p : j["phases"])
    for (const auto& added : p["added"]) saw_to = saw_to || added["name"] == "aten::to";
  EXPECT_TRUE(saw_to) << j.dump(1);

  std::ostringstream bad;
  EXPECT_EQ(tb::cli::cmd_diff_trace({a, b, "--top", "0"}, out, bad), 2);
  EXPECT_EQ(tb::cli::cmd_diff_trace({a}, out, bad), 2);
}

TEST(TraceDiff, MalformedTracesAreInputErrorsNamingTheFile) {
  const auto dir = tb::test::scratch_dir("TraceDiff.Malformed");
  const auto expect_error = [](const std::string& path, const std::string& words) {
    try {
      tbp::read_trace_profile(path);
      ADD_FAILURE() << path << " was accepted";
    } catch (const tb::InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_error(write(dir, "text.json", "this is not json"), "malformed JSON");
  expect_error(write(dir, "noevents.json", R"({"schemaVersion": 1})"), "traceEvents");
  expect_error(write(dir, "badts.json",
                     R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": "soon", "dur": 1}]})"),
               "numeric ts and dur");
  expect_error((dir / "missing.json").string(), "no such trace file");

  std::ostringstream out, err;
  const auto good = write(dir, "good.json", make_trace(1, false).dump());
  EXPECT_EQ(tb::cli::cmd_diff_trace({good, (dir / "text.json").string()}, out, err), 2);
  EXPECT_NE(err.str().find("text.json"), std::string::npos) << err.str();
}

}  // namespace
