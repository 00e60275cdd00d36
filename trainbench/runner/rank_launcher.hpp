// `trainbench run MATRIX --nproc-per-node N`: this node's N ranks, started the way torchrun
// starts them (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE in each one's environment) plus
// TRAINBENCH_STORE_FILE, a FileStore in a fresh temporary folder (no port to pick or clash on).
// The launcher only starts, relays signals and waits; every rank runs the same command line.
#pragma once
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace tb {

struct RankLaunch {
  int nproc = 1;
  std::vector<std::string> argv;  // the command each rank runs, argv[0] first
  std::string program;            // the executable ("" : this one, /proc/self/exe)
  // After one rank ended badly, how long the others get to notice (a dead peer breaks their next
  // collective at once; a rank waiting on the store does not notice) before SIGTERM, then SIGKILL.
  std::chrono::milliseconds grace{std::chrono::seconds(20)};
};

// Starts the ranks and waits for all of them. A Ctrl-C or SIGTERM to the launcher reaches every
// rank once (rank 0 then saves what was measured and tells the others to stop); each rank is
// killed if the launcher dies. Returns rank 0's exit code, or 1 (ExitCode::failure) when rank 0
// exited 0 but another rank did not; a rank that ended badly is named on `err`.
// std::runtime_error when a rank cannot be started.
int launch_ranks(const RankLaunch& launch, std::ostream& err);

}  // namespace tb
