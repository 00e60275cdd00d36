// Where results came from (results/provenance.hpp): every record survives results.json, a plain
// run's provenance is {}, a mistyped record refuses the file by its path, and the rule that
// decides whether two scenarios' segments pair by round.
#include <trainbench/results/provenance.hpp>

#include <gtest/gtest.h>

#include <trainbench/results/results.hpp>
#include <trainbench/support/json_integer.hpp>

namespace tb {
namespace {

RunProvenance every_run_record() {
  RunProvenance p;
  p.shard = ShardRecord{{1, 4}, "0123456789abcdef", 12};
  p.resume = ResumeProvenance{2, "2026-12-05T12:00:00Z", {"a", "b"}, true, {"matrix digest", "cpu.model"}};
  p.ab_session = AbSessionProvenance{"ab-7", "old", 3};
  p.merge = MergeProvenance{4,
                            {MergedShard{0, "results/s0", "run-0", "node0", "2026-12-05T11:00:00Z"},
                             MergedShard{2, "results/s2", "run-2", "node2", "2026-12-05T11:01:00Z"}},
                            {1, 3},
                            {"2/4: cpu.model: A -> B"}};
  p.ranks = RanksProvenance{8, 4, "slurm"};
  p.isolated = true;
  return p;
}

TEST(Provenance, EveryRunRecordRoundTrips) {
  const RunProvenance p = every_run_record();
  const nlohmann::json j = p;
  EXPECT_EQ(j.get<RunProvenance>(), p);
  EXPECT_EQ(j.at("merge").at("environment_differences").size(), 1u);
  EXPECT_EQ(j.at("ab_session").at("processes"), 3);
  // Each record alone, too.
  EXPECT_EQ(nlohmann::json(*p.shard).get<ShardRecord>(), *p.shard);
  EXPECT_EQ(nlohmann::json(*p.resume).get<ResumeProvenance>(), *p.resume);
  EXPECT_EQ(nlohmann::json(*p.ab_session).get<AbSessionProvenance>(), *p.ab_session);
  EXPECT_EQ(nlohmann::json(*p.merge).get<MergeProvenance>(), *p.merge);
  EXPECT_EQ(nlohmann::json(*p.ranks).get<RanksProvenance>(), *p.ranks);
}

TEST(Provenance, ScenarioRecordRoundTrips) {
  ScenarioProvenance p;
  p.shard = ScenarioShard{3, 41};
  p.measured_in_resume = 2;
  const nlohmann::json j = p;
  EXPECT_EQ(j, (nlohmann::json{{"shard", {{"index", 3}, {"position", 41}}}, {"measured_in_resume", 2}}));
  EXPECT_EQ(j.get<ScenarioProvenance>(), p);
}

// Only what applies is written: what a plain run and its scenarios carry is {}.
TEST(Provenance, APlainRunHasNone) {
  EXPECT_EQ(nlohmann::json(RunProvenance{}), nlohmann::json::object());
  EXPECT_EQ(nlohmann::json(ScenarioProvenance{}), nlohmann::json::object());
  EXPECT_EQ(nlohmann::json::object().get<RunProvenance>(), RunProvenance{});
  EXPECT_EQ(RunProvenance{}.pass(), 0);
  EXPECT_EQ(every_run_record().pass(), 2);
  AbSessionProvenance side{"ab-1", "new", std::nullopt};
  EXPECT_FALSE(nlohmann::json(side).contains("processes"));
}

TEST(Provenance, AMistypedRecordIsNamedByItsPath) {
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* field;
  };
  const Case cases[] = {
      {"/provenance/shard", "1/4", "provenance.shard"},
      {"/provenance/shard/count", 1e300, "provenance.shard.count"},
      {"/provenance/resume/rerun/1", 7, "provenance.resume.rerun[1]"},
      {"/provenance/resume/forced", "yes", "provenance.resume.forced"},
      {"/provenance/merge/missing/0", -1.5, "provenance.merge.missing[0]"},
      {"/provenance/merge/shards/1/location", 3, "provenance.merge.shards[1].location"},
      {"/provenance/ab_session/id", nullptr, "provenance.ab_session.id"},
      {"/provenance/isolated", 1, "provenance.isolated"},
      {"/scenarios/0/provenance/measured_in_resume", "1", "scenarios[0].provenance.measured_in_resume"},
      {"/scenarios/0/provenance/shard/position", -2, "scenarios[0].provenance.shard.position"},
  };
  RunResult run;
  run.run_id = "r";
  run.provenance = every_run_record();
  ScenarioResult s;
  s.id = "s";
  s.provenance = ScenarioProvenance{ScenarioShard{1, 5}, 1};
  run.scenarios = {s};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.pointer);
    nlohmann::json j = run;
    j[nlohmann::json::json_pointer(c.pointer)] = c.value;
    try {
      (void)j.get<RunResult>();
      ADD_FAILURE() << "accepted";
    } catch (const FieldError& e) { EXPECT_EQ(e.field(), c.field) << e.what(); }
  }
}

// Segments pair by round only between scenarios of one session: the same shard and the same pass.
TEST(Provenance, MeasuredTogetherMeansSameShardAndSamePass) {
  const ScenarioProvenance plain, resumed{std::nullopt, 1}, shard0{ScenarioShard{0, 3}, 0},
      shard0_again{ScenarioShard{0, 8}, 0}, shard1{ScenarioShard{1, 4}, 0}, shard0_resumed{ScenarioShard{0, 3}, 1};
  EXPECT_TRUE(measured_together(plain, plain));
  EXPECT_FALSE(measured_together(plain, resumed));
  EXPECT_TRUE(measured_together(resumed, resumed));
  EXPECT_TRUE(measured_together(shard0, shard0_again));  // the matrix position does not matter
  EXPECT_FALSE(measured_together(shard0, shard1));
  EXPECT_FALSE(measured_together(shard0, plain));
  EXPECT_FALSE(measured_together(shard0, shard0_resumed));
}

}  // namespace
}  // namespace tb
