// trainbench compare: run-vs-run comparison table, CI regression gate and A/A noise floor.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "harness/core/commands.hpp"
#include "harness/core/comparison.hpp"
#include "harness/core/error.hpp"
#include "harness/core/history.hpp"

namespace tb {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitRegression = 1;
constexpr int kExitUsage = 2;
constexpr int kExitEnvironment = 3;

constexpr const char* kUsage = R"(usage: trainbench compare [options] OLD NEW
       trainbench compare [options] --against last|RUN_ID|GIT_REV [NEW]

Compares two runs scenario by scenario (matched by model, dataset, device, optimizer, precision,
workers, accumulation and batch): median step times, change, a 95% bootstrap interval of the
speedup old/new and a verdict (faster, slower, same, noisy). OLD and NEW are results
directories or results.json files.

options:
  --fail-on-regression PCT  exit 1 when some scenario is slower by more than PCT percent beyond
                            its noise: even the optimistic end of its speedup interval is below
                            1 - PCT/100 (and below its A/A noise floor, with --noise)
  --noise FILE              A/A noise floor written by --aa; raises each scenario's threshold
                            to at least the change an A/A pair showed
  --aa                      OLD and NEW are the same build measured twice: write each
                            scenario's noise floor (observed |change|, interval width)
  --noise-out PATH          where --aa writes (default: noise-floor.json next to NEW)
  --allow-env-mismatch      compare runs measured on different hardware (CPU model, device,
                            GPU names and count)
  --against REF             take OLD from the history database: "last" (the run recorded
                            before NEW), a run id or a git revision prefix; NEW defaults to the
                            newest recorded run
  --db PATH                 history database (default results/history.sqlite)
  --threshold PCT           |change| band reported as "same" (default 2)
  --json PATH               also write the comparison as JSON
  --seed N                  bootstrap seed (default 1)
  -h, --help                this text

exit codes:
  0  no regression (or no gate requested)
  1  regression beyond the --fail-on-regression threshold
  2  usage or input error (bad option, unreadable or malformed results file)
  3  environments differ (refused; see --allow-env-mismatch)
)";

struct Args {
  std::vector<std::string> positional;
  std::optional<double> fail_pct;
  std::string noise_in, noise_out, against, db = History::kDefaultPath, json_out;
  bool aa = false, allow_env_mismatch = false, help = false;
  double threshold_pct = 2.0;
  std::uint64_t seed = 1;
};

double parse_number(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw InputError("command line", option, "expected a non-negative number, got '" + text + "'");
}

Args parse_args(const std::vector<std::string>& argv) {
  Args a;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    auto value = [&]() -> const std::string& {
      TB_CHECK_INPUT(i + 1 < argv.size(), "command line", arg, "missing value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") a.help = true;
    else if (arg == "--fail-on-regression") a.fail_pct = parse_number(arg, value());
    else if (arg == "--noise") a.noise_in = value();
    else if (arg == "--noise-out") a.noise_out = value();
    else if (arg == "--aa") a.aa = true;
    else if (arg == "--allow-env-mismatch") a.allow_env_mismatch = true;
    else if (arg == "--against") a.against = value();
    else if (arg == "--db") a.db = value();
    else if (arg == "--threshold") a.threshold_pct = parse_number(arg, value());
    else if (arg == "--json") a.json_out = value();
    else if (arg == "--seed") a.seed = static_cast<std::uint64_t>(parse_number(arg, value()));
    else if (arg.size() > 1 && arg[0] == '-') throw InputError("command line", arg, "unknown option");
    else a.positional.push_back(arg);
  }
  return a;
}

std::string format(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

std::string pad(const std::string& s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

void print_table(const RunComparison& c, std::ostream& out) {
  std::size_t id_width = 8;
  for (const auto& s : c.scenarios) id_width = std::max(id_width, s.id.size());
  out << "old: " << c.old_run_id << "\nnew: " << c.new_run_id << "\n\n";
  out << pad("scenario", id_width) << "  " << pad("old ms", 10, true) << "  "
      << pad("new ms", 10, true) << "  " << pad("change", 8, true) << "  "
      << pad("speedup [95% CI]", 24) << "  verdict\n";
  int counts[4] = {0, 0, 0, 0};
  int regressions = 0;
  for (const auto& s : c.scenarios) {
    out << pad(s.id, id_width) << "  ";
    if (!s.compared) {
      out << "not compared (old " << to_string(s.old_status) << ", new "
          << to_string(s.new_status) << ")\n";
      continue;
    }
    ++counts[static_cast<int>(s.verdict)];
    const std::string interval = format("%.3f", s.speedup.ratio) + " [" +
                                 format("%.3f", s.speedup.low) + ", " +
                                 format("%.3f", s.speedup.high) + "]";
    out << pad(format("%.3f", s.old_median_s * 1e3), 10, true) << "  "
        << pad(format("%.3f", s.new_median_s * 1e3), 10, true) << "  "
        << pad(format("%+.1f%%", s.change_pct), 8, true) << "  " << pad(interval, 24) << "  "
        << stats::to_string(s.verdict);
    if (s.regression) {
      ++regressions;
      out << "  REGRESSION (> " << format("%.1f", s.gate_pct) << "%)";
    }
    out << '\n';
  }
  out << '\n'
      << counts[0] + counts[1] + counts[2] + counts[3] << " compared: " << counts[0]
      << " faster, " << counts[1] << " slower, " << counts[2] << " same, " << counts[3]
      << " noisy";
  if (c.geomean_speedup)
    out << "; geomean speedup " << format("%.3f", c.geomean_speedup->ratio) << " ["
        << format("%.3f", c.geomean_speedup->low) << ", " << format("%.3f", c.geomean_speedup->high)
        << "]";
  out << '\n';
  for (const auto& id : c.only_in_old) out << "only in old: " << id << '\n';
  for (const auto& id : c.only_in_new) out << "only in new: " << id << '\n';
  if (regressions > 0) out << "regression: " << regressions << " scenario(s) slower beyond noise\n";
}

struct Loaded {
  RunResult old_run, new_run;
  std::string new_location;  // path of NEW, or "" when it came from the history
};

Loaded load_runs(const Args& a) {
  Loaded l;
  if (a.against.empty()) {
    TB_CHECK_INPUT(a.positional.size() == 2, "command line", "", "expected OLD and NEW, got ",
                   a.positional.size(), " path(s); see --help");
    l.old_run = load_results(a.positional[0]);
    l.new_run = load_results(a.positional[1]);
    l.new_location = a.positional[1];
    return l;
  }
  TB_CHECK_INPUT(a.positional.size() <= 1, "command line", "--against",
                 "takes at most one results path (NEW); see --help");
  TB_CHECK_INPUT(std::filesystem::exists(a.db), a.db, "", "no history database (record runs first)");
  const History history(a.db);
  if (a.positional.empty()) {
    auto newest = history.find("last");
    TB_CHECK_INPUT(newest.has_value(), a.db, "runs", "no recorded runs");
    l.new_run = std::move(*newest);
  } else {
    l.new_run = load_results(a.positional[0]);
    l.new_location = a.positional[0];
  }
  std::optional<RunResult> old_run;
  if (a.against == "last") {
    old_run = history.find_before(l.new_run.run_id);
    if (!old_run && !history.find(l.new_run.run_id)) old_run = history.find("last");
  } else {
    old_run = history.find(a.against);
  }
  TB_CHECK_INPUT(old_run.has_value(), a.db, "--against",
                 "no recorded run matches '", a.against, "' (before run '", l.new_run.run_id, "')");
  l.old_run = std::move(*old_run);
  return l;
}

std::string default_noise_path(const std::string& new_location) {
  namespace fs = std::filesystem;
  if (new_location.empty()) return "noise-floor.json";
  const fs::path p(new_location);
  const fs::path dir = fs::is_directory(p) ? p : p.parent_path();
  return (dir / "noise-floor.json").string();
}

}  // namespace

int cmd_compare(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  try {
    const Args a = parse_args(argv);
    if (a.help) {
      out << kUsage;
      return kExitOk;
    }
    CompareOptions options;
    options.same_threshold = a.threshold_pct / 100.0;
    options.allow_env_mismatch = a.allow_env_mismatch;
    options.fail_on_regression_pct = a.fail_pct;
    options.seed = a.seed;
    if (!a.noise_in.empty()) options.noise = load_noise_floor(a.noise_in);

    const Loaded runs = load_runs(a);
    const RunComparison c = compare_runs(runs.old_run, runs.new_run, options);
    if (!c.environment_differences.empty()) {
      err << "warning: comparing runs from different hardware:";
      for (const auto& d : c.environment_differences) err << "\n  " << d;
      err << '\n';
    }
    print_table(c, out);
    if (!a.json_out.empty()) {
      std::ofstream json(a.json_out);
      TB_CHECK_INPUT(json.good(), a.json_out, "--json", "cannot write");
      json << nlohmann::json(c).dump(2) << '\n';
    }
    if (a.aa) {
      const std::string path = a.noise_out.empty() ? default_noise_path(runs.new_location) : a.noise_out;
      save_noise_floor(make_noise_floor(c), path);
      out << "noise floor written to " << path << '\n';
    }
    return c.regression ? kExitRegression : kExitOk;
  } catch (const EnvironmentMismatch& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return kExitEnvironment;
  } catch (const std::exception& e) {
    err << "trainbench compare: " << e.what() << '\n';
    return kExitUsage;
  }
}

}  // namespace tb
