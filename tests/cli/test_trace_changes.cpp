// compare's operator addendum: two runs whose scenario has a Kineto trace on both sides get that
// scenario's largest operator changes; a run without traces (or from the history) gets none, and
// an unreadable trace is a note, not a failed comparison.
#include <trainbench/cli/trace_changes.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/helpers/scratch_dir.hpp"
#include "tests/helpers/synthetic_runs.hpp"

namespace {

using nlohmann::json;

// One step: ProfilerStep#0 > trainbench.forward > the given operators, 10 us each.
std::string step_trace(const std::vector<std::string>& ops) {
  json events = json::array({{{"ph", "X"},
                              {"cat", "user_annotation"},
                              {"name", "ProfilerStep#0"},
                              {"pid", 1},
                              {"tid", 1},
                              {"ts", 0},
                              {"dur", 1000}},
                             {{"ph", "X"},
                              {"cat", "user_annotation"},
                              {"name", "trainbench.forward"},
                              {"pid", 1},
                              {"tid", 1},
                              {"ts", 1},
                              {"dur", 900}}});
  double ts = 10;
  for (const auto& op : ops) {
    events.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", op}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", 10}});
    ts += 20;
  }
  return json{{"traceEvents", events}}.dump();
}

tb::RunResult profiled_run(const std::filesystem::path& dir, const std::string& id, const std::string& trace_text) {
  tb::ScenarioResult s =
      tb::testing::make_scenario("mlp", tb::Precision::fp32, 32, tb::testing::jittered(0.01, 0.01, 30, 1));
  tb::ProfileSection profile;
  profile.traces["kineto"] = "traces/s.pt.trace.json";
  s.profile = profile;
  std::filesystem::create_directories(dir / "traces");
  std::ofstream(dir / "traces" / "s.pt.trace.json") << trace_text;
  return tb::testing::make_run(id, {s});
}

TEST(TraceChanges, ComparePrintsTheLargestOperatorChanges) {
  const auto dir = tb::test::scratch_dir("TraceChanges.Largest");
  const auto old_run = profiled_run(dir / "old", "old", step_trace({"aten::addmm", "aten::mm"}));
  const auto new_run = profiled_run(dir / "new", "new", step_trace({"aten::addmm", "aten::to", "aten::to"}));
  const auto c = tb::compare_runs(old_run, new_run, tb::CompareOptions{});
  std::ostringstream out;
  tb::cli::print_trace_changes(c, old_run, (dir / "old").string(), new_run, (dir / "new" / "results.json").string(), 5,
                               out);
  EXPECT_NE(out.str().find("operator changes in " + new_run.scenarios[0].id), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("added    aten::to (op, forward): 2 calls"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("removed  aten::mm (op, forward)"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("aten::addmm"), std::string::npos) << "unchanged operators are not listed";

  std::ostringstream from_history;  // no location: traces unknown
  tb::cli::print_trace_changes(c, old_run, "", new_run, (dir / "new").string(), 5, from_history);
  EXPECT_EQ(from_history.str(), "");

  std::ofstream(dir / "new" / "traces" / "s.pt.trace.json") << "{broken";
  std::ostringstream broken;
  tb::cli::print_trace_changes(c, old_run, (dir / "old").string(), new_run, (dir / "new").string(), 5, broken);
  EXPECT_NE(broken.str().find("not compared:"), std::string::npos) << broken.str();
  EXPECT_NE(broken.str().find("s.pt.trace.json"), std::string::npos) << broken.str();
}

}  // namespace
