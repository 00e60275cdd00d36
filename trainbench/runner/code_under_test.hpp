// The revision of the code being measured (the user's commit), as distinct from trainbench's
// own revision (environment.git_revision). A run records it as environment.code_under_test, the
// history lists and places change points by it.
//
// Where it comes from, first match wins:
//   1. --commit SHA (and --label TEXT) on the command line: CI systems that know better;
//   2. the git repository holding the matrix file: commit, dirty flag (tracked files only),
//      branch, commit time and subject;
//   3. the usual CI variables when there is no repository (a copied workspace):
//      GITHUB_SHA, CI_COMMIT_SHA (GitLab), BUILDKITE_COMMIT, CIRCLE_SHA1, GIT_COMMIT (Jenkins).
// CI checkouts are often detached heads: the branch then comes from GITHUB_HEAD_REF /
// GITHUB_REF_NAME, CI_COMMIT_REF_NAME, BUILDKITE_BRANCH, CIRCLE_BRANCH or GIT_BRANCH.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/runner/rank_environment.hpp>

namespace tb {

struct CodeUnderTest {
  std::string commit;       // "" when nothing says
  bool dirty = false;       // tracked files differ from the commit
  std::string branch;       // "" when unknown (a detached head without CI variables)
  std::string commit_time;  // ISO 8601, from git
  std::string subject;      // the commit message's first line, from git
  std::string label;        // --label, free text ("nightly", "pr-123")
  std::string source;       // "command line", "git", or the CI variable's name
  bool empty() const { return commit.empty() && label.empty(); }
};
void to_json(nlohmann::json& j, const CodeUnderTest& c);

// Runs `git ARGS...` in a directory; the trimmed output, or nullopt when git fails.
using GitRunner =
    std::function<std::optional<std::string>(const std::string& dir, const std::vector<std::string>& args)>;
GitRunner system_git();

// See the header comment. `dir` is the folder of the matrix file.
CodeUnderTest describe_code_under_test(const std::string& dir, const std::string& commit_flag,
                                       const std::string& label_flag, const EnvLookup& env,
                                       const GitRunner& git = system_git());

}  // namespace tb
