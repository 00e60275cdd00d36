// trainbench bisect GOOD BAD: the commit between them that made training slower. Each commit it
// asks about is checked out in a git worktree of its own, built with the user's command, and
// measured side by side with GOOD's build by `ab` (each side its own checkout's matrix), so the
// machine's drift between steps cannot fake a culprit. BAD is measured first: when it is not
// slower than GOOD beyond the gate, there is nothing to find. The search (runner/
// bisect_search.hpp) skips commits that do not build or cannot be judged, as `git bisect skip`
// does, and is bounded by --max-steps.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/cli/option_values.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/runner/bisect_search.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/shell_capture.hpp>
#include <trainbench/support/utc_time.hpp>

namespace tb::cli {

namespace {

namespace fs = std::filesystem;

// A shell command's exit code and its stdout (trailing newlines cut); stderr to `log` when given.
ShellCapture bisect_shell(const std::string& command, const std::string& log = "") {
  return capture_shell(command + (log.empty() ? " 2>/dev/null" : " 2>>" + shell_quoted(log)));
}

struct BisectArgs {
  std::string good, bad, repo, matrix, build, binary, out_dir;
  double fail_pct = 5;
  int max_steps = -1;  // -1: the search's own need plus a few skips
  int rounds_per_process = -1;
  std::string max_rounds, time_budget;  // passed to ab as given (it checks them)
  std::vector<std::string> sets;
  bool keep_trees = false;
};

struct Commit {
  std::string sha, subject;
  std::string short_sha() const { return sha.substr(0, 10); }
};

class Bisection {
 public:
  Bisection(BisectArgs a, std::ostream& out) : a_(std::move(a)), out_(out) {}

  int run() {
    resolve();
    fs::create_directories(root_ / "logs");
    ensure_writable_dir(root_);
    out_ << "trainbench bisect: " << candidates_.size() << " commits after " << good_.short_sha() << " up to "
         << candidates_.back().short_sha() << " in " << top_ << "; each measured side by side with "
         << good_.short_sha() << "'s build (ab --fail-on-regression " << a_.fail_pct << "); work in " << root_.string()
         << '\n';
    good_build_ = prepare(good_);
    TB_CHECK_INPUT(good_build_.has_value(), a_.good, "--build",
                   "the GOOD commit does not build with this command (log: ", log_of(good_), ")");
    // BAD first: when it is not slower, there is no culprit to look for.
    const BisectVerdict bad = judge(candidates_.size() - 1);
    int code = 0;
    if (bad != BisectVerdict::bad) {
      const std::string& note = verdicts_.back().note;
      out_ << "not distinguishable: " << candidates_.back().short_sha() << " (BAD) is "
           << (bad == BisectVerdict::good ? "not slower than GOOD beyond the gate"
                                          : "undecided against GOOD after the budget, or not judged (it does not "
                                            "build, or the session was refused as contended)")
           << (note.empty() ? "" : " (" + note + ")") << "; nothing to bisect"
           << (bad == BisectVerdict::good ? "" : " (a larger --time-budget or --max-rounds may settle it)") << "\n";
      code = as_int(ExitCode::contended);
    } else {
      const int budget =
          a_.max_steps >= 0 ? a_.max_steps : bisect_steps_needed(candidates_.size() - 1) + 4;  // room for skips
      const auto outcome = bisect_search(
          candidates_.size(), [&](std::size_t i) { return judge(i); }, budget);
      code = report(outcome);
    }
    write_summary(code);
    if (!a_.keep_trees) remove_trees();
    return code;
  }

 private:
  struct Build {
    std::string binary, matrix;
  };

  std::string git(const std::string& args) const { return "git -C " + shell_quoted(top_) + " " + args; }

  void resolve() {
    const std::string repo = a_.repo.empty() ? std::string(".") : a_.repo;
    const auto top = bisect_shell("git -C " + shell_quoted(repo) + " rev-parse --show-toplevel");
    TB_CHECK_INPUT(top.code == 0 && !top.out.empty(), repo, "--repo", "not inside a git repository");
    top_ = top.out;
    const auto commit = [&](const std::string& ref, const char* what) {
      const auto sha = bisect_shell(git("rev-parse --verify --quiet " + shell_quoted(ref + "^{commit}")));
      TB_CHECK_INPUT(sha.code == 0 && !sha.out.empty(), "command line", what, "'", ref, "' is not a commit of ", top_);
      return Commit{sha.out, bisect_shell(git("log -1 --format=%s " + sha.out)).out};
    };
    good_ = commit(a_.good, "GOOD");
    const Commit bad = commit(a_.bad, "BAD");
    TB_CHECK_INPUT(good_.sha != bad.sha, "command line", "BAD", "is GOOD itself: nothing between them");
    TB_CHECK_INPUT(bisect_shell(git("merge-base --is-ancestor " + good_.sha + " " + bad.sha)).code == 0, "command line",
                   "GOOD", good_.short_sha(), " is not an ancestor of ", bad.short_sha(),
                   ": give the older, good commit first");
    const auto list =
        bisect_shell(git("rev-list --reverse --first-parent --ancestry-path " + good_.sha + ".." + bad.sha));
    std::istringstream lines(list.out);
    for (std::string sha; std::getline(lines, sha);)
      if (!sha.empty()) candidates_.push_back({sha, bisect_shell(git("log -1 --format=%s " + sha)).out});
    TB_CHECK_INPUT(!candidates_.empty() && candidates_.back().sha == bad.sha, "command line", "BAD",
                   "is not on the first-parent line from GOOD");
    for (const auto& [path, what] : {std::pair{a_.matrix, "--matrix"}, std::pair{a_.binary, "--binary"}})
      TB_CHECK_INPUT(!path.empty(), "command line", what, "is required");
    TB_CHECK_INPUT(!a_.build.empty(), "command line", "--build", "is required (\"true\" when nothing needs building)");
    if (a_.out_dir.empty()) {
      a_.out_dir = "results/bisect-" + utc_now(UtcForm::compact) + "-p" + std::to_string(::getpid());
    }
    root_ = fs::absolute(a_.out_dir).lexically_normal();
  }

  std::string log_of(const Commit& c) const { return (root_ / "logs" / ("build-" + c.short_sha() + ".log")).string(); }

  // The commit checked out in a worktree of its own and built there; nullopt when it does not
  // build or the binary is not there afterwards.
  std::optional<Build> prepare(const Commit& c) {
    if (const auto it = builds_.find(c.sha); it != builds_.end()) return it->second;
    const fs::path tree = root_ / "trees" / c.short_sha();
    const std::string log = log_of(c);
    std::optional<Build> result;
    if (!fs::exists(tree)) {
      const auto add =
          bisect_shell(git("worktree add --detach --force " + shell_quoted(tree.string()) + " " + c.sha), log);
      if (add.code != 0) {
        builds_[c.sha] = std::nullopt;
        return std::nullopt;
      }
      trees_.push_back(tree);
    }
    out_ << "  building " << c.short_sha() << " (" << c.subject << "): " << a_.build << '\n' << std::flush;
    const auto built = bisect_shell("cd " + shell_quoted(tree.string()) + " && TRAINBENCH_BISECT_COMMIT=" + c.sha +
                                        " sh -c " + shell_quoted(a_.build) + " >> " + shell_quoted(log),
                                    log);
    const fs::path binary = fs::path(a_.binary).is_absolute() ? fs::path(a_.binary) : tree / a_.binary;
    const fs::path matrix = fs::path(a_.matrix).is_absolute() ? fs::path(a_.matrix) : tree / a_.matrix;
    if (built.code == 0 && fs::is_regular_file(binary) && ::access(binary.c_str(), X_OK) == 0 && fs::exists(matrix))
      result = Build{binary.string(), matrix.string()};
    else out_ << "  " << c.short_sha() << " did not build (exit " << built.code << "; log: " << log << ")\n";
    builds_[c.sha] = result;
    return result;
  }

  // Candidate i measured side by side with GOOD: ab's --bisect answer.
  BisectVerdict judge(std::size_t i) {
    const Commit& c = candidates_[i];
    const auto build = prepare(c);
    BisectVerdict v = BisectVerdict::skip;
    std::string note;
    if (build) {
      const std::string dir = (root_ / "steps" / c.short_sha()).string();
      std::vector<std::string> args = {build->matrix,
                                       "--old-matrix",
                                       good_build_->matrix,
                                       "--old",
                                       good_build_->binary,
                                       "--new",
                                       build->binary,
                                       "--out",
                                       dir,
                                       "--fail-on-regression",
                                       std::to_string(a_.fail_pct),
                                       "--bisect"};
      for (const auto& s : a_.sets) args.insert(args.end(), {"--set", s});
      if (a_.rounds_per_process >= 0)
        args.insert(args.end(), {"--rounds-per-process", std::to_string(a_.rounds_per_process)});
      if (!a_.max_rounds.empty()) args.insert(args.end(), {"--max-rounds", a_.max_rounds});
      if (!a_.time_budget.empty()) args.insert(args.end(), {"--time-budget", a_.time_budget});
      std::ostringstream ab_out, ab_err;
      const int code = cmd_ab(args, ab_out, ab_err);
      write_file_durably((root_ / "steps" / (c.short_sha() + ".log")).string(), ab_out.str() + ab_err.str());
      if (code == 128)
        throw InputError((root_ / "steps" / (c.short_sha() + ".log")).string(), "",
                         "ab stopped the bisection (bad input or an output not written): see the log");
      // ab --bisect: 0 only when every scenario's interval excludes a slowdown of the gate's size
      // ("not slower"; noisy or undecided is never good), 1 when one lies wholly beyond it, 125
      // when undecided after the budget, refused (contended) or NEW broken. The margin for "good"
      // is the gate: BAD was confirmed slower beyond the gate, so the slowdown found there is
      // larger than the gate (measure/sequential_test.hpp, bisect_margin).
      v = code == 0 ? BisectVerdict::good : code == 1 ? BisectVerdict::bad : BisectVerdict::skip;
      note = worst_change(dir);
    } else {
      note = "does not build";
    }
    verdicts_.push_back({c, v, note});
    out_ << "step " << verdicts_.size() << ": " << c.short_sha() << " (" << c.subject << "): " << describe(v)
         << (note.empty() ? "" : " · " + note) << '\n'
         << std::flush;
    return v;
  }

  static const char* describe(BisectVerdict v) {
    return v == BisectVerdict::good  ? "good (not slower than GOOD)"
           : v == BisectVerdict::bad ? "bad (slower than GOOD)"
                                     : "skipped (undecided after the budget, or not judged)";
  }

  // "slowest change mlp/fp32/w0/a1/b32 +18.2% [+12.0%, +25.1%] after 6 rounds" from the
  // step's comparison.json: the scenario whose change is largest, with the gate's interval (the
  // sequential one when ab measured until it decided) and the rounds its verdict took.
  static std::string worst_change(const std::string& dir) {
    std::ifstream in(fs::path(dir) / "comparison.json");
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("scenarios")) return "";
    const nlohmann::json* worst = nullptr;
    for (const auto& s : j["scenarios"])
      if (s.value("compared", false) && (!worst || s.value("change_pct", 0.0) > worst->value("change_pct", 0.0)))
        worst = &s;
    if (!worst) return "";
    char buf[320];
    const std::string id = worst->value("id", std::string("?"));
    if (const auto seq = worst->find("sequential"); seq != worst->end() && seq->value("valid", false)) {
      const double ratio = seq->value("ratio", 1.0), low = seq->value("low", 1.0), high = seq->value("high", 1.0);
      std::snprintf(buf, sizeof buf, "slowest change %s %+.1f%% [%+.1f%%, %+.1f%%] after %d rounds", id.c_str(),
                    (ratio - 1) * 100, (low - 1) * 100, (high - 1) * 100, seq->value("measured", 0));
      return buf;
    }
    const double lo = 1 / worst->value("ci_high", 1.0) - 1, hi = 1 / worst->value("ci_low", 1.0) - 1;
    std::snprintf(buf, sizeof buf, "slowest change %s %+.1f%% [%+.1f%%, %+.1f%%]", id.c_str(),
                  worst->value("change_pct", 0.0), lo * 100, hi * 100);
    return buf;
  }

  int report(const BisectOutcome& o) {
    if (o.first_bad) {
      const Commit& c = candidates_[*o.first_bad];
      const Commit& before = *o.first_bad == 0 ? good_ : candidates_[*o.first_bad - 1];
      out_ << "\nfirst slower commit: " << c.sha << " (" << c.subject << ")\n  the commit before it, "
           << before.short_sha() << ", is as fast as GOOD; " << verdicts_.size() << " ab sessions\n";
      culprit_ = c.sha;
      return as_int(ExitCode::ok);
    }
    out_ << "\nnot distinguishable further"
         << (o.out_of_steps ? " (stopped after --max-steps " + std::to_string(o.steps.size()) + " steps)" : "")
         << ": the first slower commit is one of\n";
    for (std::size_t i = o.range_begin; i <= o.range_end; ++i)
      out_ << "  " << candidates_[i].short_sha() << " " << candidates_[i].subject << '\n';
    return as_int(ExitCode::contended);
  }

  void write_summary(int code) const {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& v : verdicts_)
      steps.push_back({{"commit", v.commit.sha},
                       {"subject", v.commit.subject},
                       {"verdict", to_string(v.verdict)},
                       {"note", v.note}});
    const nlohmann::json j = {{"good", good_.sha}, {"bad", candidates_.back().sha},         {"first_bad", culprit_},
                              {"exit_code", code}, {"fail_on_regression_pct", a_.fail_pct}, {"steps", steps}};
    write_file_durably((root_ / "bisect.json").string(), j.dump(2) + "\n");
    out_ << "steps and verdicts: " << (root_ / "bisect.json").string() << '\n';
  }

  void remove_trees() const {
    for (const auto& tree : trees_) bisect_shell(git("worktree remove --force " + shell_quoted(tree.string())));
    bisect_shell(git("worktree prune"));
    std::error_code ec;
    fs::remove(root_ / "trees", ec);  // only when empty: a tree git could not remove stays visible
  }

  struct Judged {
    Commit commit;
    BisectVerdict verdict;
    std::string note;
  };

  BisectArgs a_;
  std::ostream& out_;
  std::string top_;
  fs::path root_;
  Commit good_;
  std::vector<Commit> candidates_;
  std::optional<Build> good_build_;
  std::map<std::string, std::optional<Build>> builds_;
  std::vector<fs::path> trees_;
  std::vector<Judged> verdicts_;
  std::string culprit_;
};

int bisect(const ParsedArgs& parsed, std::ostream& out, std::ostream& err) {
  BisectArgs a;
  a.good = parsed.positional(0);
  a.bad = parsed.positional(1);
  TB_CHECK_INPUT(!a.good.empty() && !a.bad.empty(), "command line", "GOOD BAD",
                 "trainbench bisect needs a good (older) and a bad (newer, slower) commit");
  a.repo = parsed.value_or("--repo", "");
  a.matrix = parsed.value_or("--matrix", "");
  a.build = parsed.value_or("--build", "");
  a.binary = parsed.value_or("--binary", "");
  a.out_dir = parsed.value_or("--out", "");
  a.sets = parsed.values("--set");
  a.keep_trees = parsed.has("--keep-trees");
  if (auto v = parsed.value("--fail-on-regression")) a.fail_pct = parse_non_negative("--fail-on-regression", *v);
  const auto whole = [&](const char* option, int& field) {
    if (auto v = parsed.value(option)) {
      const double n = parse_non_negative(option, *v);
      TB_CHECK_INPUT(n == static_cast<int>(n) && n <= 1000, "command line", option, "expected a whole number");
      field = static_cast<int>(n);
    }
  };
  whole("--max-steps", a.max_steps);
  whole("--rounds-per-process", a.rounds_per_process);
  TB_CHECK_INPUT(a.rounds_per_process < 0 || a.rounds_per_process == 1, "command line", "--rounds-per-process",
                 "must be 1 in a bisection: the gate's interval counts every round as independent, but "
                 "rounds measured by one worker pair share that pair's per-process offset (a few percent, which "
                 "would pass for a change)");
  a.max_rounds = parsed.value_or("--max-rounds", "");
  a.time_budget = parsed.value_or("--time-budget", "");
  try {
    return Bisection(a, out).run();
  } catch (const OutputError&) { throw; } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    err << "trainbench bisect: " << e.what() << '\n';
    return as_int(ExitCode::bad_input);
  }
}

}  // namespace

const Command& bisect_command() {
  static const Command command{
      {.name = "bisect",
       .summary = "the commit between GOOD and BAD that made training slower, each step built and\n"
                  "measured side by side with GOOD by `ab`",
       .synopses = {"GOOD BAD --matrix PATH --build CMD --binary PATH [options]"},
       .description = "Finds the first commit after GOOD, up to BAD, that is slower than GOOD beyond the gate. Each\n"
                      "commit it asks about is checked out in a git worktree of its own (DIR/trees/), built there\n"
                      "with CMD (sh -c, in the worktree; $TRAINBENCH_BISECT_COMMIT is the commit), and measured\n"
                      "with `trainbench ab` against GOOD's build, each side running its own checkout's matrix:\n"
                      "round by round, so the machine's drift cannot fake a culprit. BAD is measured first; when\n"
                      "it is not slower, there is nothing to find. A commit that does not build, or whose\n"
                      "measurement cannot be judged (contended, no interval, NEW broken), is skipped and the search\n"
                      "goes around it. DIR/bisect.json has every step and verdict; DIR/steps/<commit>/ each\n"
                      "session's results; DIR/logs/ the builds' output.\n",
       .positionals = {{"GOOD", "a commit that is fast (older)"}, {"BAD", "a commit that is slower (newer)"}},
       .options = {{"--matrix", "PATH",
                    "the matrix, relative to the repository's top (each side uses its own\ncheckout's)"},
                   {"--build", "CMD",
                    "the build command, run in each checkout (\"true\" when nothing is built:\na Python loop)"},
                   {"--binary", "PATH",
                    "the trainbench executable the build leaves, relative to the checkout\n(or absolute: one "
                    "installed trainbench for every commit, e.g. for a Python loop)"},
                   {"--repo", "DIR", "the git repository (default: the working folder's)"},
                   {"--fail-on-regression", "PCT", "how much slower than GOOD is \"bad\" (default 5)"},
                   {"--max-steps", "N", "at most N ab sessions after BAD's (default: log2 of the commits, plus 4)"},
                   {"--set", "PATH=JSON", "matrix override for every session (e.g. steps.rounds=6)", true},
                   {"--rounds-per-process", "N", "passed to ab; must be 1 (the gate counts rounds as independent)"},
                   {"--max-rounds", "N", "passed to ab: the most clean rounds a step's verdict may take"},
                   {"--time-budget", "DURATION", "passed to ab: the longest one step may measure (e.g. 10m)"},
                   {"--out", "DIR", "where the worktrees, logs and sessions go (default results/bisect-<time>)"},
                   {"--keep-trees", "", "leave the worktrees (DIR/trees/) in place afterwards"}},
       .epilogue = "exit codes: 0 the first slower commit was named; 2 bad input (commits, options, GOOD does not\n"
                   "build); 4 not distinguishable (BAD is not slower than GOOD, or the culprit is one of several\n"
                   "commits that could not be judged, or --max-steps ran out); 5 an output could not be written\n"},
      bisect};
  return command;
}

int cmd_bisect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(bisect_command(), args, out, err);
}

}  // namespace tb::cli
