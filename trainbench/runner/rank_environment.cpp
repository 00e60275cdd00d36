#include <trainbench/runner/rank_environment.hpp>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include <trainbench/support/error.hpp>

namespace tb {

namespace {

constexpr int kMaxRanks = 1 << 20;

int integer_variable(const EnvLookup& env, const char* name, int min, int max) {
  const auto text = env(name);
  if (!text) throw InputError("environment", name, "is not set (the launcher sets it for every rank)");
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(*text, &used);
  } catch (const std::exception&) { used = 0; }
  if (used == 0 || used != text->size())
    throw InputError("environment", name, "must be an integer, got '" + *text + "'");
  if (value < min || value > max)
    throw InputError("environment", name,
                     "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + *text);
  return static_cast<int>(value);
}

int optional_integer(const EnvLookup& env, const char* name, int fallback, int min, int max) {
  return env(name) ? integer_variable(env, name, min, max) : fallback;
}

// The ranks and their place on this node, as torchrun and trainbench's launcher name them.
void read_torch_variables(const EnvLookup& env, RankEnvironment& r) {
  r.world_size = integer_variable(env, "WORLD_SIZE", 1, kMaxRanks);
  r.rank = integer_variable(env, "RANK", 0, r.world_size - 1);
  r.local_world_size = optional_integer(env, "LOCAL_WORLD_SIZE", 1, 1, r.world_size);
  r.local_rank = optional_integer(env, "LOCAL_RANK", 0, 0, r.local_world_size - 1);
}

// "2(x3),1" -> 2: the tasks on the first node, which is this node's count in the usual even split.
int leading_count(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  return i == 0 ? 0 : std::atoi(text.substr(0, i).c_str());
}

}  // namespace

EnvLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::string first_slurm_host(std::string_view list, const char* variable) {
  const auto bad = [&](const std::string& why) {
    return InputError("environment", variable, why + " (node list '" + std::string(list) + "')");
  };
  if (list.empty()) throw bad("is empty");
  // The first entry ends at a comma outside brackets.
  std::size_t end = 0;
  int depth = 0;
  for (; end < list.size(); ++end) {
    if (list[end] == '[') ++depth;
    if (list[end] == ']') --depth;
    if (list[end] == ',' && depth == 0) break;
  }
  const std::string_view entry = list.substr(0, end);
  const auto open = entry.find('[');
  if (open == std::string_view::npos) {
    if (entry.find(']') != std::string_view::npos) throw bad("has a ']' without '['");
    if (entry.empty()) throw bad("starts with an empty entry");
    return std::string(entry);
  }
  const auto close = entry.find(']', open);
  if (close == std::string_view::npos) throw bad("has a '[' without ']'");
  // "gpu[07-09,11]" -> prefix "gpu", first range "07-09" -> "07" (leading zeros kept).
  const std::string_view ranges = entry.substr(open + 1, close - open - 1);
  const std::string_view first = ranges.substr(0, std::min(ranges.find(','), ranges.find('-')));
  if (first.empty() || first.find_first_not_of("0123456789") != std::string_view::npos)
    throw bad("has a malformed range");
  return std::string(entry.substr(0, open)) + std::string(first) + std::string(entry.substr(close + 1));
}

std::optional<RankEnvironment> rank_environment(const EnvLookup& env) {
  RankEnvironment r;
  if (const auto file = env("TRAINBENCH_STORE_FILE")) {
    r.launcher = "trainbench";
    if (file->empty()) throw InputError("environment", "TRAINBENCH_STORE_FILE", "is empty");
    read_torch_variables(env, r);
    r.store_file = *file;
    return r;
  }
  if (env("TORCHELASTIC_RUN_ID") || (env("RANK") && env("WORLD_SIZE"))) {
    r.launcher = "torchrun";
    read_torch_variables(env, r);
    const auto addr = env("MASTER_ADDR");
    if (!addr || addr->empty()) throw InputError("environment", "MASTER_ADDR", "is not set (the rendezvous host)");
    r.master_addr = *addr;
    r.master_port = integer_variable(env, "MASTER_PORT", 1, 65535);
    const auto agent = env("TORCHELASTIC_USE_AGENT_STORE");
    r.store_hosted_elsewhere = agent && (*agent == "True" || *agent == "true" || *agent == "1");
    return r;
  }
  // srun sets the step's variables; an sbatch script (the batch step) has SLURM_PROCID but no
  // SLURM_STEP_NUM_TASKS and runs as one process.
  if (env("SLURM_PROCID") && env("SLURM_STEP_NUM_TASKS")) {
    r.launcher = "slurm";
    r.world_size = integer_variable(env, "SLURM_STEP_NUM_TASKS", 1, kMaxRanks);
    r.rank = integer_variable(env, "SLURM_PROCID", 0, r.world_size - 1);
    const auto per_node = env("SLURM_STEP_TASKS_PER_NODE");
    r.local_world_size = per_node ? std::max(1, leading_count(*per_node)) : 1;
    r.local_rank = optional_integer(env, "SLURM_LOCALID", 0, 0, kMaxRanks);
    if (r.local_rank >= r.local_world_size) r.local_world_size = r.local_rank + 1;
    if (const auto addr = env("MASTER_ADDR"); addr && !addr->empty()) {
      r.master_addr = *addr;
    } else {
      const char* list = env("SLURM_STEP_NODELIST") ? "SLURM_STEP_NODELIST" : "SLURM_JOB_NODELIST";
      const auto nodes = env(list);
      if (!nodes) throw InputError("environment", "SLURM_STEP_NODELIST", "is not set and MASTER_ADDR neither");
      r.master_addr = first_slurm_host(*nodes, list);
    }
    if (env("MASTER_PORT")) {
      r.master_port = integer_variable(env, "MASTER_PORT", 1, 65535);
    } else {
      // Jobs sharing a node get different ports; MASTER_PORT overrides.
      const int job = optional_integer(env, "SLURM_JOB_ID", 0, 0, std::numeric_limits<int>::max());
      r.master_port = 20000 + job % 20000;
    }
    return r;
  }
  return std::nullopt;
}

}  // namespace tb
