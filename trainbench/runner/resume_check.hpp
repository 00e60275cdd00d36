// Whether `trainbench run --resume DIR` may add to the run saved in DIR: the merged results must
// still be one matrix measured on one machine, or they would compare what cannot be compared.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/results/results.hpp>

namespace tb {

// The reasons to refuse, each naming the field ("matrix.digest: ...", "environment: cpu.model:
// ..."): the matrix now measures something else than `run` did (`digest_now`, scenarios_digest
// of the re-expanded matrix) or the hardware differs (environment_differences). Empty: resumable.
std::vector<std::string> resume_refusals(const RunResult& run, const std::string& digest_now,
                                         const nlohmann::json& environment_now);

// The scenarios a resume measures again: every status but ok and skipped (skipped is the
// device's answer, and it would be the same), and those saved "in_progress" (the run was
// killed outright, SIGKILL or power, in the middle of their measurement).
bool needs_rerun(const ScenarioResult& scenario);

}  // namespace tb
