// trainbench merge DIR... --out DIR: the results of the shards of one matrix (`run --shard i/n`)
// as one run, with its reports (results/merge.hpp does the merging and its checks).
#include <filesystem>
#include <system_error>

#include <trainbench/cli/commands.hpp>
#include <trainbench/cli/exit_code.hpp>
#include <trainbench/reporters/reporter.hpp>
#include <trainbench/results/durable_file.hpp>
#include <trainbench/results/history.hpp>
#include <trainbench/results/merge.hpp>
#include <trainbench/support/error.hpp>

namespace tb::cli {

namespace {

namespace fs = std::filesystem;

// The same folder, however it was spelled ("a/", "./a").
bool same_place(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const auto ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const auto cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

int merge(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const auto& dirs = args.positionals();
  TB_CHECK_INPUT(!dirs.empty(), "command line", "DIR", "name the shards' results folders, e.g. results/shard-*");
  const std::string out_dir = args.value_or("--out", "");
  TB_CHECK_INPUT(!out_dir.empty(), "command line", "--out", "needed: the folder for the merged results");
  const std::string format_list = args.value_or("--format", "");
  const auto formats = format_list.empty()     ? default_report_formats()
                       : format_list == "none" ? std::vector<std::string>{}
                                               : parse_report_formats(format_list);
  MergeOptions options;
  options.allow_mixed_environments = args.has("--allow-mixed-environments");
  options.allow_missing_shards = args.has("--allow-missing-shards");

  std::vector<ShardResults> shards;
  for (const auto& dir : dirs) {
    // Writing into a shard's folder would replace that shard's own results.json.
    const fs::path folder = fs::is_directory(dir) ? fs::path(dir) : fs::path(dir).parent_path();
    TB_CHECK_INPUT(!same_place(folder, out_dir), "command line", "--out", out_dir, " holds the shard ", dir,
                   ": give the merged results a folder of their own");
    shards.push_back({dir, load_results(dir)});
  }
  MergedRun merged;
  try {
    merged = merge_shards(std::move(shards), options);
  } catch (const MixedEnvironments& e) {
    err << "trainbench merge: " << e.what() << "\n";
    return as_int(ExitCode::environment_mismatch);
  }
  for (const auto& warning : merged.warnings) err << "trainbench merge: warning: " << warning << "\n";

  ensure_writable_dir(out_dir);
  const std::string results_path = (fs::path(out_dir) / "results.json").string();
  save_results(merged.run, results_path);
  out << "merged " << dirs.size() << " shard" << (dirs.size() == 1 ? "" : "s") << ", " << merged.run.scenarios.size()
      << " scenarios: " << results_path << "\n";
  for (const auto& path : write_reports(merged.run, out_dir, formats, out_dir)) out << "wrote " << path << "\n";
  if (const auto db = args.value("--history")) {
    History history(*db);
    history.record(merged.run, results_path);
    out << "history: recorded run " << merged.run.run_id << " in " << *db << "\n";
  }
  return as_int(ExitCode::ok);
}

}  // namespace

const Command& merge_command() {
  static const Command command{
      {.name = "merge",
       .summary = "combine the results of the shards of a matrix (run --shard i/n) into one run",
       .synopses = {"DIR... --out DIR [options]"},
       .description = "Reads DIR/results.json of every shard of one matrix (trainbench run MATRIX --shard i/n,\n"
                      "i = 0 .. n-1) and writes them as one run into --out: results.json and the reports,\n"
                      "the scenarios in the matrix's order, the baseline every shard recorded, speedups and\n"
                      "summary computed anew. Scenarios measured by different shards are compared as\n"
                      "independent measurements (never paired by round). Refused, naming the folder: a run\n"
                      "that is not a shard, shards of different matrices or shard counts, a shard given\n"
                      "twice or missing, shards measured in different environments (hardware, torch, build).\n",
       .positionals = {{"DIR", "a shard's results folder (or its results.json); give every shard"}},
       .last_positional_repeats = true,
       .options = {{"--out", "DIR", "folder for the merged results.json and reports (not a shard's)"},
                   {"--format", "LIST", "reports to write: md,csv,html,gbench (default all) or none"},
                   {"--allow-mixed-environments", "",
                    "merge shards measured on different hardware or software anyway\n"
                    "(recorded in provenance.merge.environment_differences)"},
                   {"--allow-missing-shards", "",
                    "merge fewer than all n shards (recorded in provenance.merge.missing)"},
                   {"--history", "DB", "also record the merged run in this history database"}},
       .epilogue = "exit codes: 0 ok, 2 bad input (not shards of one matrix, a shard missing or twice),\n"
                   "3 shards from different environments (refused), 5 an output could not be written\n"},
      merge};
  return command;
}

int cmd_merge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return execute_command(merge_command(), args, out, err);
}

}  // namespace tb::cli
