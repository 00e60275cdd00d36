// Reading a rank's place from what each launcher sets: trainbench's --nproc-per-node, torchrun,
// srun; nothing at all (one process); and every malformed variable named in the error.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <trainbench/runner/rank_environment.hpp>
#include <trainbench/support/error.hpp>

namespace {

using Env = std::map<std::string, std::string>;

tb::EnvLookup lookup(const Env& env) {
  return [env](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

std::optional<tb::RankEnvironment> read(const Env& env) { return tb::rank_environment(lookup(env)); }

TEST(RankEnvironment, NoLauncherIsOneProcess) {
  EXPECT_FALSE(read({}).has_value());
  EXPECT_FALSE(read({{"HOME", "/root"}, {"LOCAL_RANK", "0"}}).has_value());
  // An sbatch script outside srun: the batch step has a PROCID but no step task count.
  EXPECT_FALSE(read({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_JOB_ID", "77"}}).has_value());
}

TEST(RankEnvironment, TrainbenchLauncherUsesAFileStore) {
  const auto r = read({{"TRAINBENCH_STORE_FILE", "/tmp/x/store"},
                       {"RANK", "1"},
                       {"WORLD_SIZE", "2"},
                       {"LOCAL_RANK", "1"},
                       {"LOCAL_WORLD_SIZE", "2"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "trainbench");
  EXPECT_EQ(r->rank, 1);
  EXPECT_EQ(r->world_size, 2);
  EXPECT_EQ(r->local_rank, 1);
  EXPECT_EQ(r->local_world_size, 2);
  EXPECT_EQ(r->store_file, "/tmp/x/store");
  EXPECT_TRUE(r->master_addr.empty());
}

TEST(RankEnvironment, TorchrunWithItsAgentStore) {
  const auto r = read({{"RANK", "3"},
                       {"WORLD_SIZE", "8"},
                       {"LOCAL_RANK", "3"},
                       {"LOCAL_WORLD_SIZE", "4"},
                       {"MASTER_ADDR", "node7"},
                       {"MASTER_PORT", "29400"},
                       {"TORCHELASTIC_RUN_ID", "none"},
                       {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "torchrun");
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->world_size, 8);
  EXPECT_EQ(r->local_world_size, 4);
  EXPECT_EQ(r->master_addr, "node7");
  EXPECT_EQ(r->master_port, 29400);
  EXPECT_TRUE(r->store_hosted_elsewhere);  // every rank a client, or rank 0 hits "address in use"
  const auto own = read({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1234"}});
  ASSERT_TRUE(own);
  EXPECT_FALSE(own->store_hosted_elsewhere);  // rank 0 hosts the store itself
}

TEST(RankEnvironment, SlurmStepTakesTheFirstNodeAsMaster) {
  const auto r = read({{"SLURM_PROCID", "5"},
                       {"SLURM_STEP_NUM_TASKS", "8"},
                       {"SLURM_LOCALID", "1"},
                       {"SLURM_STEP_TASKS_PER_NODE", "4(x2)"},
                       {"SLURM_STEP_NODELIST", "gpu[07-08]"},
                       {"SLURM_JOB_ID", "123456"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "slurm");
  EXPECT_EQ(r->rank, 5);
  EXPECT_EQ(r->world_size, 8);
  EXPECT_EQ(r->local_rank, 1);
  EXPECT_EQ(r->local_world_size, 4);
  EXPECT_EQ(r->master_addr, "gpu07");
  EXPECT_EQ(r->master_port, 20000 + 123456 % 20000);
  const auto given =
      read({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"MASTER_ADDR", "head"}, {"MASTER_PORT", "3000"}});
  ASSERT_TRUE(given);
  EXPECT_EQ(given->master_addr, "head");
  EXPECT_EQ(given->master_port, 3000);
}

TEST(RankEnvironment, FirstSlurmHost) {
  EXPECT_EQ(tb::first_slurm_host("node1", "V"), "node1");
  EXPECT_EQ(tb::first_slurm_host("node1,node2", "V"), "node1");
  EXPECT_EQ(tb::first_slurm_host("gpu[07-09,11],login1", "V"), "gpu07");
  EXPECT_EQ(tb::first_slurm_host("gpu[3,5]", "V"), "gpu3");
  EXPECT_EQ(tb::first_slurm_host("rack[1-2]-n", "V"), "rack1-n");
  for (const char* bad : {"", "gpu[", "gpu[]", "gpu[a-b]", "gpu]", ",x"}) {
    try {
      tb::first_slurm_host(bad, "SLURM_STEP_NODELIST");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const tb::InputError& e) { EXPECT_EQ(e.field(), "SLURM_STEP_NODELIST") << bad; }
  }
}

// Every malformed variable is named, with the launcher's own name for it.
TEST(RankEnvironment, BadValuesNameTheVariable) {
  const Env torchrun = {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "29500"}};
  const struct {
    const char* variable;
    const char* value;
  } cases[] = {
      {"RANK", "two"},           {"RANK", "2"},        {"RANK", "-1"},
      {"WORLD_SIZE", "0"},       {"WORLD_SIZE", "2x"}, {"MASTER_PORT", "70000"},
      {"MASTER_PORT", ""},       {"MASTER_ADDR", ""},  {"LOCAL_RANK", "5"},
      {"LOCAL_WORLD_SIZE", "9"},
  };
  for (const auto& c : cases) {
    Env env = torchrun;
    env[c.variable] = c.value;
    try {
      read(env);
      ADD_FAILURE() << c.variable << "=" << c.value << " accepted";
    } catch (const tb::InputError& e) {
      EXPECT_EQ(e.field(), c.variable) << e.what();
      EXPECT_EQ(e.file(), "environment");
    }
  }
  Env missing = torchrun;
  missing.erase("MASTER_PORT");
  EXPECT_THROW(read(missing), tb::InputError);
  EXPECT_THROW(read({{"TRAINBENCH_STORE_FILE", ""}, {"RANK", "0"}, {"WORLD_SIZE", "1"}}), tb::InputError);
  EXPECT_THROW(read({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}}), tb::InputError);  // no master
}

}  // namespace
