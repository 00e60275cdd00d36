#include <trainbench/cli/report_bundle.hpp>

#include <filesystem>
#include <system_error>

#include <trainbench/support/error.hpp>

namespace tb::cli {

std::vector<std::string> bundle_run(const RunResult& run, const std::string& results_dir, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path from = fs::path(results_dir.empty() ? "." : results_dir);
  if (fs::exists(dir, ec) && fs::equivalent(from, dir, ec))
    throw InputError("command line", "--bundle", "the bundle folder must not be the results folder " + results_dir);
  fs::create_directories(dir, ec);
  if (ec) throw OutputError(dir, ec.message());
  auto copy = [&](const fs::path& source, const fs::path& target) {
    fs::create_directories(target.parent_path(), ec);
    if (!ec) fs::copy_file(source, target, fs::copy_options::overwrite_existing, ec);
    if (ec) throw OutputError(target.string(), ec.message());
  };
  save_results(run, (fs::path(dir) / "results.json").string());
  std::vector<std::string> missing;
  for (const auto& s : run.scenarios) {
    if (!s.profile) continue;
    for (const auto& [kind, path] : s.profile->traces) {
      // Absolute or escaping paths are not the run's own files: they stay where they are.
      const fs::path rel = fs::path(path).lexically_normal();
      if (rel.is_absolute() || rel.empty() || *rel.begin() == "..") {
        missing.push_back(path);
        continue;
      }
      if (!fs::is_regular_file(from / rel, ec)) {
        missing.push_back(path);
        continue;
      }
      copy(from / rel, fs::path(dir) / rel);
    }
  }
  return missing;
}

}  // namespace tb::cli
