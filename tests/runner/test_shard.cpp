// Sharded matrices: parsing --shard i/n, which scenarios each shard measures (all of them once,
// balanced, whatever the order of the matrix file), and the records a shard run leaves.
#include <trainbench/runner/shard.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "tests/helpers/scratch_dir.hpp"

#include <trainbench/support/error.hpp>

namespace {

using tb::Shard;

// `n` distinct scenarios over models, precisions and batches, as a matrix expands them.
std::vector<tb::ScenarioParams> matrix_of(std::size_t n) {
  std::vector<tb::ScenarioParams> all;
  const char* models[] = {"mlp", "cnn", "resnet"};
  for (std::size_t i = 0; i < n; ++i) {
    tb::ScenarioParams p;
    p.model = models[i % 3];
    p.precision = static_cast<tb::Precision>((i / 3) % tb::kPrecisionCount);
    p.batch = p.effective_batch = 16 << (i / 12);
    all.push_back(p);
  }
  return all;
}

std::vector<std::string> ids_of(const std::vector<tb::ScenarioParams>& scenarios) {
  std::vector<std::string> ids;
  for (const auto& p : scenarios) ids.push_back(tb::scenario_id(p));
  return ids;
}

TEST(Shard, ParsesZeroBasedIndexOfCount) {
  EXPECT_EQ(tb::parse_shard("0/1"), (Shard{0, 1}));
  EXPECT_EQ(tb::parse_shard("3/4"), (Shard{3, 4}));
  EXPECT_EQ(tb::parse_shard("07/10"), (Shard{7, 10}));
  EXPECT_EQ(tb::to_string(tb::parse_shard("2/5")), "2/5");
}

TEST(Shard, BadValuesAreUsageErrorsNamingTheOption) {
  struct Case {
    const char* text;
    const char* says;  // a piece of the message
  };
  const Case cases[] = {
      {"3/2", "shards are numbered from 0 to 1"},
      {"2/2", "shards are numbered from 0 to 1"},
      {"x/2", "is not i/n"},
      {"0/0", "shard count must be from 1"},
      {"", "is not i/n"},
      {"1", "is not i/n"},
      {"1/", "is not i/n"},
      {"/2", "is not i/n"},
      {"-1/2", "is not i/n"},
      {"1/-2", "is not i/n"},
      {"+1/2", "is not i/n"},
      {" 1/2", "is not i/n"},
      {"1.0/2", "is not i/n"},
      {"1/2/3", "is not i/n"},
      {"99999999999999999999/2", "is not i/n"},
      {"0/1000001", "shard count must be from 1"},
  };
  for (const auto& c : cases) {
    try {
      tb::parse_shard(c.text);
      ADD_FAILURE() << "'" << c.text << "' was accepted";
    } catch (const tb::InputError& e) {
      EXPECT_EQ(e.field(), "--shard") << c.text;
      EXPECT_EQ(e.file(), "command line") << c.text;
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.text << ": " << e.what();
    }
  }
}

TEST(Shard, EveryScenarioIsInExactlyOneShardAndShardsAreBalanced) {
  for (std::size_t n : {0u, 1u, 2u, 5u, 12u, 23u, 48u}) {
    const auto all = matrix_of(n);
    for (int count : {1, 2, 3, 4, 7, 50}) {
      std::vector<int> owners(n, 0);
      std::size_t smallest = n, largest = 0;
      for (int i = 0; i < count; ++i) {
        const auto members = tb::shard_members(all, {i, count});
        ASSERT_EQ(members.size(), n);
        std::size_t size = 0;
        for (std::size_t k = 0; k < n; ++k)
          if (members[k]) {
            ++owners[k];
            ++size;
          }
        EXPECT_EQ(tb::shard_scenarios(all, {i, count}).size(), size);
        smallest = std::min(smallest, size);
        largest = std::max(largest, size);
      }
      for (std::size_t k = 0; k < n; ++k)
        EXPECT_EQ(owners[k], 1) << "scenario " << k << " of " << n << ", " << count << " shards";
      EXPECT_LE(largest - smallest, 1u) << n << " scenarios, " << count << " shards";
    }
  }
}

TEST(Shard, ShardScenariosKeepMatrixOrder) {
  const auto all = matrix_of(12);
  const auto mine = tb::shard_scenarios(all, {1, 3});
  auto ids = ids_of(all);
  std::vector<std::size_t> at;
  for (const auto& id : ids_of(mine)) at.push_back(std::find(ids.begin(), ids.end(), id) - ids.begin());
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
}

TEST(Shard, ChoiceDoesNotDependOnTheOrderOfTheMatrixFile) {
  auto all = matrix_of(23);
  // Two scenarios that differ only outside the axes share an id: their order must not matter either.
  tb::ScenarioParams twin = all[4];
  twin.learning_rate = 0.5;
  all.push_back(twin);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 5; ++trial) {
    auto shuffled = all;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (int i = 0; i < 4; ++i) {
      const auto a = tb::shard_scenarios(all, {i, 4}), b = tb::shard_scenarios(shuffled, {i, 4});
      std::multiset<std::string> da, db;
      for (const auto& p : a) da.insert(tb::scenarios_digest({p}));
      for (const auto& p : b) db.insert(tb::scenarios_digest({p}));
      EXPECT_EQ(da, db) << "shard " << i << ", trial " << trial;
    }
  }
}

TEST(Shard, RecordNamesTheFullMatrixAndReadsBack) {
  const auto all = matrix_of(10);
  tb::RunResult run;
  run.provenance.shard = tb::shard_record({2, 3}, all);
  EXPECT_EQ(nlohmann::json(run)["provenance"]["shard"]["matrix_digest"], tb::scenarios_digest(all));
  const auto back = tb::recorded_shard(run, "r/results.json");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->shard, (Shard{2, 3}));
  EXPECT_EQ(back->scenarios, 10u);
  EXPECT_EQ(back->matrix_digest, tb::scenarios_digest(all));
  EXPECT_FALSE(tb::recorded_shard(tb::RunResult{}, "r/results.json").has_value());
}

// A record of the wrong type is refused as the file is read, one out of range where a shard is
// needed; either way by the file and the field.
TEST(Shard, MalformedRecordIsRefusedNamingFileAndField) {
  const nlohmann::json good = tb::shard_record({1, 4}, matrix_of(4));
  struct Case {
    nlohmann::json record;
    const char* field;
  };
  auto with = [&](const char* key, nlohmann::json value) {
    auto r = good;
    if (value.is_null()) r.erase(key);
    else r[key] = std::move(value);
    return r;
  };
  const Case cases[] = {
      {"1/4", "provenance.shard"},
      {with("index", 4), "provenance.shard.index"},
      {with("index", -1), "provenance.shard.index"},
      {with("index", nullptr), "provenance.shard.index"},
      {with("count", 0), "provenance.shard.count"},
      {with("count", 1e300), "provenance.shard.count"},
      {with("index", "1"), "provenance.shard.index"},
      {with("matrix_digest", nullptr), "provenance.shard.matrix_digest"},
      {with("matrix_digest", 5), "provenance.shard.matrix_digest"},
  };
  const std::string path = (tb::test::scratch_dir("Shard.MalformedRecord") / "results.json").string();
  for (const auto& c : cases) {
    tb::RunResult run;
    run.run_id = "r";
    nlohmann::json file = run;
    file["provenance"]["shard"] = c.record;
    std::ofstream(path) << file.dump();
    try {
      tb::recorded_shard(tb::load_results(path), path);
      ADD_FAILURE() << c.record.dump() << " was accepted";
    } catch (const tb::InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.field(), c.field) << c.record.dump() << ": " << e.what();
    }
  }
}

TEST(Shard, MarkedScenarioKnowsItsShardAndMatrixPosition) {
  tb::ScenarioResult s;
  EXPECT_FALSE(tb::matrix_position(s).has_value());
  tb::mark_shard(s, {1, 4}, 17);
  ASSERT_TRUE(s.provenance.shard);
  EXPECT_EQ(s.provenance.shard->index, 1);
  EXPECT_EQ(tb::matrix_position(s), 17u);
}

}  // namespace
