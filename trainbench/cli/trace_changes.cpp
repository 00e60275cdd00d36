#include <trainbench/cli/trace_changes.hpp>

#include <filesystem>
#include <optional>

#include <trainbench/profiling/trace_diff.hpp>

namespace tb::cli {

namespace {

namespace fs = std::filesystem;

// The scenario's Kineto trace as a path, when its run's location is known and it wrote one.
std::optional<fs::path> kineto_trace(const RunResult& run, const std::string& location, const std::string& id) {
  if (location.empty()) return std::nullopt;
  for (const auto& s : run.scenarios) {
    if (s.id != id || !s.profile) continue;
    const auto it = s.profile->traces.find("kineto");
    if (it == s.profile->traces.end()) return std::nullopt;
    const fs::path where(location);
    return (fs::is_directory(where) ? where : where.parent_path()) / it->second;
  }
  return std::nullopt;
}

}  // namespace

void print_trace_changes(const RunComparison& c, const RunResult& old_run, const std::string& old_location,
                         const RunResult& new_run, const std::string& new_location, std::size_t top,
                         std::ostream& out) {
  for (const auto& s : c.scenarios) {
    if (!s.compared) continue;
    const auto old_trace = kineto_trace(old_run, old_location, s.id);
    const auto new_trace = kineto_trace(new_run, new_location, s.id);
    if (!old_trace || !new_trace) continue;
    out << "\noperator changes in " << s.id << " (Kineto traces, per profiled step; "
        << "trainbench diff-trace for all):\n";
    try {
      const auto diff = profiling::diff_traces(profiling::read_trace_profile(old_trace->string()),
                                               profiling::read_trace_profile(new_trace->string()));
      const auto changes = profiling::largest_changes(diff, top);
      if (changes.empty()) out << "  none\n";
      for (const auto& change : changes) out << "  " << profiling::describe_change(change) << '\n';
    } catch (const std::exception& e) { out << "  not compared: " << e.what() << '\n'; }
  }
}

}  // namespace tb::cli
