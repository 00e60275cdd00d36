#include <trainbench/runner/rank_launcher.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>

#include <trainbench/runner/child_process.hpp>
#include <trainbench/runner/interrupt.hpp>

extern char** environ;

namespace tb {

namespace {

using Clock = std::chrono::steady_clock;

// The variables a rank reads (rank_environment.hpp); inherited values would contradict ours.
bool is_rank_variable(const std::string& entry) {
  for (const char* name : {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "LOCAL_WORLD_SIZE=", "TRAINBENCH_STORE_FILE=",
                           "TORCHELASTIC_RUN_ID=", "TORCHELASTIC_USE_AGENT_STORE=", "MASTER_ADDR=", "MASTER_PORT="})
    if (entry.rfind(name, 0) == 0) return true;
  return false;
}

std::vector<std::string> rank_environment_entries(int rank, int nproc, const std::string& store_file) {
  std::vector<std::string> env;
  bool threads_set = false;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (is_rank_variable(entry)) continue;
    threads_set = threads_set || entry.rfind("OMP_NUM_THREADS=", 0) == 0;
    env.push_back(entry);
  }
  env.push_back("RANK=" + std::to_string(rank));
  env.push_back("LOCAL_RANK=" + std::to_string(rank));
  env.push_back("WORLD_SIZE=" + std::to_string(nproc));
  env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(nproc));
  env.push_back("TRAINBENCH_STORE_FILE=" + store_file);
  // The ranks share this node's cores, as torchrun has them do (it sets 1; a share is fairer on
  // a CPU-only node, where the cores are what trains).
  if (!threads_set) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    env.push_back("OMP_NUM_THREADS=" + std::to_string(std::max(1u, cores / static_cast<unsigned>(nproc))));
  }
  return env;
}

pid_t start_rank(const std::string& program, const std::vector<std::string>& argv,
                 const std::vector<std::string>& env) {
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot start a rank: ") + std::strerror(errno));
  if (pid == 0) {
    // Own process group: a Ctrl-C at the terminal reaches the launcher only, which relays it once
    // (a rank that got it twice would stop at once instead of saving). Killed with the launcher.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::execve(program.c_str(), args.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

bool ended_badly(const ChildExit& e) { return !e.exited || e.code != 0; }

// The store's folder holds files only. Not std::filesystem::remove_all: libtorch carries its own
// copy of that code, which crashes on a non-empty folder (tests/helpers/scratch_dir.hpp).
void remove_store_folder(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        ::unlink((dir + "/" + e->d_name).c_str());
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

}  // namespace

int launch_ranks(const RankLaunch& launch, std::ostream& err) {
  namespace fs = std::filesystem;
  std::string dir_template = (fs::temp_directory_path() / "trainbench-ranks-XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr)
    throw std::runtime_error("cannot create a folder for the ranks' store in " + fs::temp_directory_path().string() +
                             ": " + std::strerror(errno));
  const std::string dir = dir_template;
  const std::string program = launch.program.empty() ? "/proc/self/exe" : launch.program;

  std::vector<pid_t> pids;
  std::vector<std::optional<ChildExit>> exits(static_cast<std::size_t>(launch.nproc));
  install_interrupt_handlers();
  try {
    for (int rank = 0; rank < launch.nproc; ++rank)
      pids.push_back(start_rank(program, launch.argv, rank_environment_entries(rank, launch.nproc, dir + "/store")));
  } catch (...) {
    for (const pid_t pid : pids) ::kill(pid, SIGKILL);
    for (const pid_t pid : pids) ::waitpid(pid, nullptr, 0);
    remove_store_folder(dir);
    throw;
  }

  int relayed = 0;
  std::optional<Clock::time_point> first_failure;
  bool terminated = false, killed = false;
  std::size_t running = pids.size();
  while (running > 0) {
    if (const int sig = interrupt_signal(); sig != 0 && relayed == 0) {
      relayed = sig;
      for (std::size_t r = 0; r < pids.size(); ++r)
        if (!exits[r]) ::kill(pids[r], sig);
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      const auto it = std::find(pids.begin(), pids.end(), pid);
      if (it == pids.end()) continue;
      const auto rank = static_cast<std::size_t>(it - pids.begin());
      exits[rank] = ChildExit::from_wait_status(status);
      --running;
      if (ended_badly(*exits[rank]) && !first_failure && running > 0 && relayed == 0) {
        first_failure = Clock::now();
        err << "trainbench: rank " << rank << " ended with " << exits[rank]->describe()
            << "; the other ranks stop when they notice, or in "
            << std::chrono::duration_cast<std::chrono::seconds>(launch.grace).count() << " s\n";
      }
      continue;
    }
    if (first_failure) {
      const auto waited = Clock::now() - *first_failure;
      const auto send = [&](int sig) {
        for (std::size_t r = 0; r < pids.size(); ++r)
          if (!exits[r]) ::kill(pids[r], sig);
      };
      if (!terminated && waited > launch.grace) {
        send(SIGTERM);
        terminated = true;
      } else if (!killed && waited > launch.grace + std::chrono::seconds(5)) {
        send(SIGKILL);
        killed = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  remove_store_folder(dir);

  for (std::size_t r = 1; r < exits.size(); ++r)
    if (ended_badly(*exits[r]) && !(relayed != 0 && exits[r]->exited))
      err << "trainbench: rank " << r << " ended with " << exits[r]->describe() << "\n";
  const ChildExit& leader = *exits[0];
  if (!leader.exited) return 128 + leader.signal;
  if (leader.code != 0) return leader.code;
  const bool others_failed = std::any_of(exits.begin() + 1, exits.end(), [](const auto& e) { return ended_badly(*e); });
  return others_failed ? 1 : 0;
}

}  // namespace tb
