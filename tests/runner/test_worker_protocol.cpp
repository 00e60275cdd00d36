// The worker protocol's messages: every typed struct writes what schema/worker-protocol.schema.json
// describes and reads back what it wrote; a transcript of version 1 (the messages `ab` and `run
// --isolate` exchanged before the messages were typed) still parses; a hello of another version
// is refused with both versions named.
#include <trainbench/runner/worker_protocol.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "tests/helpers/scratch_dir.hpp"

namespace {

using nlohmann::json;
using namespace tb;

const std::string kFixtures = std::string(TB_SOURCE_DIR) + "/tests/fixtures/worker-protocol/";

ScenarioResult fixture_scenario() {
  std::ifstream in(std::string(TB_SOURCE_DIR) + "/tests/fixtures/results_fixture.json");
  return json::parse(in).at("scenarios").at(0).get<ScenarioResult>();
}

// One of every message, as the C++ structs write it.
std::vector<json> every_message() {
  WorkerHello hello;
  hello.scenarios = {{"mlp/fp32/w0/a1/b64", {{"model", "mlp"}, {"batch", 64}}},
                     {"mlp/fp32/w0/a4/b64", {{"batch", 64}}}};
  hello.digest = "9c1f0d4be21a7e55";
  hello.rounds = 8;
  hello.max_rounds = 12;
  hello.seed = 42;
  SegmentReply with_snapshot{true, false, std::nullopt, fixture_scenario(), std::nullopt};
  SegmentReply failed{false, false, std::nullopt, std::nullopt, std::string("rank 1: out of memory")};
  // The segment just measured, with the host's load over it: what a paired session judges.
  SegmentReply with_segment{true, false, tb::Segment{}, std::nullopt, std::nullopt};
  with_segment.segment->round = 2;
  with_segment.segment->steps = 12;
  with_segment.segment->median_s = 0.031;
  with_segment.segment->cpu_s = 0.7;
  with_segment.segment->load = tb::SegmentLoad{
      .available = true, .wall_s = 0.4, .num_cpus = 2, .other_cpu_cores = 0.02, .steal_ticks = 1, .total_ticks = 80};
  with_segment.contention = tb::ContentionThresholds{.other_cpu_cores = 0.5, .steal_fraction = 0.1};
  RankPlan plan;
  plan.scenarios = {fixture_scenario().params};
  plan.out_dir = "results/run";
  return {json(hello),
          json(WorkerRefusal{"bad matrix", 2}),
          json(WorkerRefusal{"no scenario 9", std::nullopt}),
          request_json(SegmentRequest{1, 3, false}),
          request_json(SegmentRequest{0, 0, true}),
          json(SegmentReply{true, true, std::nullopt, std::nullopt, std::nullopt}),
          json(with_snapshot),
          json(failed),
          request_json(FinishOneRequest{1}),
          json(FinishOneReply{fixture_scenario()}),
          request_json(SaveRequest{}),
          json(SavedReply{}),
          request_json(FinishRequest{}),
          json(FinishedReply{"DIR/results.json"}),
          request_json(DropRequest{1, "rank 1: timed out"}),
          json(plan),
          json(with_segment)};
}

// 0 valid, 1 invalid, 2 python3-jsonschema missing.
int validate(const std::string& jsonl) {
  const std::string command = "python3 " + std::string(TB_SOURCE_DIR) + "/scripts/validate_results.py " +
                              TB_SOURCE_DIR + "/schema/worker-protocol.schema.json " + jsonl;
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(WorkerProtocol, EveryMessageOfTheStructsValidatesAgainstTheSchema) {
  const auto dir = tb::test::scratch_dir("WorkerProtocol.schema");
  const std::string path = (dir / "messages.jsonl").string();
  {
    std::ofstream out(path);
    for (const auto& m : every_message()) out << m.dump() << '\n';
  }
  const int rc = validate(path);
  if (rc == 2) GTEST_SKIP() << "python3 jsonschema not installed";
  EXPECT_EQ(rc, 0) << path;
}

TEST(WorkerProtocol, TheSchemaRejectsWhatIsNotAMessage) {
  const auto dir = tb::test::scratch_dir("WorkerProtocol.schema_rejects");
  for (const char* bad : {R"({"segment": -1, "round": 0})",
                          R"({"hello": 2, "scenarios": [], "digest": "", "rounds": 1, "max_rounds": 1, "seed": 1})",
                          R"({"active": true})", R"({"segment": 1, "round": 0, "extra": 1})"}) {
    const std::string path = (dir / "bad.jsonl").string();
    std::ofstream(path) << bad << '\n';
    const int rc = validate(path);
    if (rc == 2) GTEST_SKIP() << "python3 jsonschema not installed";
    EXPECT_EQ(rc, 1) << bad;
  }
}

TEST(WorkerProtocol, EveryStructReadsBackWhatItWrote) {
  const auto messages = every_message();
  const auto hello = messages[0].get<WorkerHello>();
  EXPECT_EQ(json(hello), messages[0]);
  EXPECT_EQ(hello.scenarios.at(1).id, "mlp/fp32/w0/a4/b64");
  EXPECT_EQ(hello.max_rounds, 12);
  EXPECT_EQ(json(messages[1].get<WorkerRefusal>()), messages[1]);
  EXPECT_EQ(messages[1].get<WorkerRefusal>().exit, 2);
  EXPECT_FALSE(messages[2].get<WorkerRefusal>().exit.has_value());
  for (std::size_t at : {3u, 4u, 8u, 10u, 12u, 14u})
    EXPECT_EQ(request_json(parse_request(messages[at])), messages[at]) << at;
  const auto snapshot = messages[6].get<SegmentReply>();
  ASSERT_TRUE(snapshot.snapshot.has_value());
  EXPECT_EQ(snapshot.snapshot->id, fixture_scenario().id);
  EXPECT_EQ(messages[7].get<SegmentReply>().message, "rank 1: out of memory");
  EXPECT_EQ(messages[9].get<FinishOneReply>().result.id, fixture_scenario().id);
  EXPECT_EQ(messages[13].get<FinishedReply>().results, "DIR/results.json");
  const auto plan = messages[15].get<RankPlan>();
  ASSERT_EQ(plan.scenarios.size(), 1u);
  EXPECT_EQ(scenario_id(plan.scenarios[0]), fixture_scenario().id);
  EXPECT_EQ(plan.out_dir, "results/run");
  const auto segment = messages[16].get<SegmentReply>().segment;
  ASSERT_TRUE(segment.has_value());
  EXPECT_EQ(segment->round, 2);
  ASSERT_TRUE(segment->load.has_value());
  EXPECT_EQ(segment->load->total_ticks, 80u);
  ASSERT_TRUE(messages[16].get<SegmentReply>().contention.has_value());
  EXPECT_DOUBLE_EQ(messages[16].get<SegmentReply>().contention->steal_fraction, 0.1);
  EXPECT_EQ(json(messages[16].get<SegmentReply>()), messages[16]);
}

// What each line of a transcript is, read the way the side that receives it reads it.
std::string read_message(const json& m) {
  if (m.contains("hello")) return "hello " + std::to_string(m.get<WorkerHello>().scenarios.size());
  if (m.contains("error")) return "refusal " + m.get<WorkerRefusal>().error.substr(0, 12);
  if (m.contains("active"))
    return std::string("segment reply") + (m.get<SegmentReply>().snapshot ? " with snapshot" : "");
  if (m.contains("result")) return "result " + m.get<FinishOneReply>().result.id;
  if (m.contains("saved")) {
    (void)m.get<SavedReply>();
    return "saved";
  }
  if (m.contains("results")) return "results " + m.get<FinishedReply>().results;
  return std::visit(
      [](const auto& r) -> std::string {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, SegmentRequest>)
          return "segment " + std::to_string(r.scenario) + " round " + std::to_string(r.round);
        else if constexpr (std::is_same_v<T, FinishOneRequest>) return "finish_one " + std::to_string(r.scenario);
        else if constexpr (std::is_same_v<T, SaveRequest>) return "save";
        else if constexpr (std::is_same_v<T, FinishRequest>) return "finish";
        else return "drop " + std::to_string(r.scenario);
      },
      parse_request(m));
}

// A fixed transcript of version 1, the messages as the workers and parents of that version wrote
// them (keys in nlohmann's order, the segment request without "snapshot" from `ab`).
TEST(WorkerProtocol, AVersionOneTranscriptStillParses) {
  std::ifstream in(kFixtures + "v1-transcript.jsonl");
  std::vector<std::string> read;
  std::string line;
  while (std::getline(in, line)) read.push_back(read_message(json::parse(line)));
  const std::vector<std::string> expected = {"hello 3",
                                             "segment 2 round 0",
                                             "segment reply",
                                             "segment 0 round 0",
                                             "segment reply",
                                             "save",
                                             "saved",
                                             "segment 0 round 1",
                                             "segment reply with snapshot",
                                             "finish_one 0",
                                             "result mlp/fp32/w0/a1/b64",
                                             "refusal a --isolate ",
                                             "finish",
                                             "results results/ab-20261203-101500-p4242/new/p0/results.json",
                                             "refusal scenarios/qu"};
  EXPECT_EQ(read, expected);
  const int rc = validate(kFixtures + "v1-transcript.jsonl");
  if (rc != 2) { EXPECT_EQ(rc, 0); }
}

TEST(WorkerProtocol, AHelloOfAnotherVersionIsRefusedNamingBoth) {
  json hello = json(WorkerHello{});
  hello["hello"] = 2;
  try {
    (void)hello.get<WorkerHello>();
    FAIL() << "a version 2 hello was accepted";
  } catch (const WorkerProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("version 1"), std::string::npos) << e.what();
  }
  json plan = json(RankPlan{});
  plan["protocol"] = 7;
  EXPECT_THROW((void)plan.get<RankPlan>(), WorkerProtocolError);
  EXPECT_THROW((void)json({{"hi", 1}}).get<WorkerHello>(), WorkerProtocolError);
}

TEST(WorkerProtocol, WhatIsNotARequestIsRefused) {
  EXPECT_THROW(parse_request(json({{"op", "segment"}, {"i", 1}})), WorkerProtocolError);  // not this vocabulary
  EXPECT_THROW(parse_request(json({{"segment", "two"}, {"round", 0}})), WorkerProtocolError);
  EXPECT_THROW(parse_request(json::array()), WorkerProtocolError);
  EXPECT_TRUE(std::holds_alternative<SegmentRequest>(parse_request(json({{"segment", 1}, {"round", 0}}))));
}

}  // namespace
