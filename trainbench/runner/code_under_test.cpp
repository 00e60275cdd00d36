#include <trainbench/runner/code_under_test.hpp>

#include <trainbench/support/shell_capture.hpp>

namespace tb {

namespace {

std::string first_set(const EnvLookup& env, std::initializer_list<const char*> names, std::string* which = nullptr) {
  for (const char* name : names)
    if (auto v = env(name); v && !v->empty()) {
      if (which) *which = name;
      return *v;
    }
  return "";
}

std::string ci_branch(const EnvLookup& env) {
  // GITHUB_HEAD_REF is the pull request's branch; GITHUB_REF_NAME would be "123/merge" there.
  return first_set(env, {"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BUILDKITE_BRANCH",
                         "CIRCLE_BRANCH", "GIT_BRANCH"});
}

}  // namespace

void to_json(nlohmann::json& j, const CodeUnderTest& c) {
  j = {{"commit", c.commit},   {"dirty", c.dirty}, {"branch", c.branch}, {"commit_time", c.commit_time},
       {"subject", c.subject}, {"label", c.label}, {"source", c.source}};
}

GitRunner system_git() {
  return [](const std::string& dir, const std::vector<std::string>& args) -> std::optional<std::string> {
    std::string cmd = "git -C " + shell_quoted(dir);
    for (const auto& a : args) cmd += " " + shell_quoted(a);
    const ShellCapture r = capture_shell(cmd + " 2>/dev/null");
    if (!r.ok()) return std::nullopt;
    return r.out;
  };
}

CodeUnderTest describe_code_under_test(const std::string& dir, const std::string& commit_flag,
                                       const std::string& label_flag, const EnvLookup& env, const GitRunner& git) {
  CodeUnderTest c;
  c.label = label_flag;
  const auto head = git(dir, {"rev-parse", "HEAD"});
  if (!commit_flag.empty()) {
    c.commit = commit_flag;
    c.source = "command line";
  } else if (head && !head->empty()) {
    c.commit = *head;
    c.source = "git";
  } else {
    std::string which;
    c.commit = first_set(env, {"GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "CIRCLE_SHA1", "GIT_COMMIT"}, &which);
    c.source = which;
    c.branch = ci_branch(env);
    return c;
  }
  // What git knows about the commit, when the repository has it (--commit may name another).
  const auto described = git(dir, {"log", "-1", "--format=%H%n%cI%n%s", c.commit, "--"});
  if (described) {
    const auto nl1 = described->find('\n');
    const auto nl2 = nl1 == std::string::npos ? std::string::npos : described->find('\n', nl1 + 1);
    if (nl2 != std::string::npos) {
      c.commit = described->substr(0, nl1);  // the full hash, also for an abbreviated --commit
      c.commit_time = described->substr(nl1 + 1, nl2 - nl1 - 1);
      c.subject = described->substr(nl2 + 1);
    }
  }
  if (head && *head == c.commit) {
    const auto status = git(dir, {"status", "--porcelain", "--untracked-files=no"});
    c.dirty = status && !status->empty();
    const auto branch = git(dir, {"rev-parse", "--abbrev-ref", "HEAD"});
    if (branch && *branch != "HEAD") c.branch = *branch;
  }
  if (c.branch.empty()) c.branch = ci_branch(env);
  return c;
}

}  // namespace tb
