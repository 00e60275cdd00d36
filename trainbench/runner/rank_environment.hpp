// Where this process stands in a data-parallel world, read from what its launcher set:
// trainbench's own `run --nproc-per-node N` (rank_launcher.hpp), torchrun (`torchrun
// --no-python trainbench run ...`) or Slurm's srun. Pure: the environment is passed in, so every
// launcher's variables are tested without starting one.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tb {

struct RankEnvironment {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;        // the rank on this node (which device it takes)
  int local_world_size = 1;  // ranks on this node (how the cores are shared)
  std::string launcher;      // "trainbench", "torchrun" or "slurm": for messages and results.json
  // The rendezvous store. trainbench's own launcher: a FileStore (no port to clash). torchrun and
  // Slurm: a TCPStore at master_addr:master_port, hosted by rank 0, or by torchrun's agent when
  // store_hosted_elsewhere (TORCHELASTIC_USE_AGENT_STORE=True: every rank is then a client, or
  // rank 0 fails with "address in use").
  std::string store_file;
  std::string master_addr;
  int master_port = 0;
  bool store_hosted_elsewhere = false;
};

// A variable's value; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
EnvLookup process_environment();

// The launcher's variables, in this order: trainbench's (TRAINBENCH_STORE_FILE with RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE), torchrun's (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_USE_AGENT_STORE), Slurm's inside an
// srun step (SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID, SLURM_STEP_TASKS_PER_NODE, the
// master from MASTER_ADDR or the step's first node, MASTER_PORT or 20000 + job id % 20000).
// nullopt: none of them (a plain single process; an sbatch script outside srun counts as one).
// InputError naming the variable when one is malformed or out of range.
std::optional<RankEnvironment> rank_environment(const EnvLookup& env);

// Slurm's compressed node list ("gpu[07-09,11],login1") -> its first host ("gpu07").
// InputError (naming `variable`) when it is empty or malformed.
std::string first_slurm_host(std::string_view nodelist, const char* variable);

}  // namespace tb
