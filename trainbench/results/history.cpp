#include <trainbench/results/history.hpp>

#include <cctype>

#include <trainbench/results/history_store.hpp>
#include <trainbench/support/error.hpp>
#include <trainbench/support/utc_time.hpp>

namespace tb {

namespace {

bool looks_like_revision(const std::string& ref) {
  if (ref.size() < 4) return false;
  for (char c : ref)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

History::History(const std::string& location)
    : path_(redacted_history_location(location)),
      store_(is_postgresql_url(location) ? open_postgresql_history(location) : open_sqlite_history(location)) {}

History::~History() = default;

void History::record(const RunResult& run, const std::string& results_path) {
  TB_CHECK_INPUT(!run.run_id.empty(), results_path, "run_id", "empty; cannot record the run");
  std::string started_at = environment_text(run.environment, "started_at");
  if (started_at.empty()) started_at = utc_now();
  store_->record(run, results_path, started_at, nlohmann::json(run).dump());
}

std::vector<RunSummary> History::runs(int limit) const { return store_->runs(limit); }

std::optional<RunResult> History::load_run(const std::string& run_id) const {
  const auto text = store_->results_json(run_id);
  if (!text) return std::nullopt;
  try {
    return nlohmann::json::parse(*text).get<RunResult>();
  } catch (const std::exception& e) {
    throw InputError(path_, "runs.results_json", "run '" + run_id + "' unreadable: " + e.what());
  }
}

std::optional<RunResult> History::find(const std::string& ref) const {
  if (ref == "last") {
    const auto newest = runs(1);
    return newest.empty() ? std::nullopt : load_run(newest.front().run_id);
  }
  if (auto exact = load_run(ref)) return exact;
  if (!looks_like_revision(ref)) return std::nullopt;
  const auto id = store_->newest_run_of_revision(ref);
  return id ? load_run(*id) : std::nullopt;
}

std::optional<RunResult> History::find_before(const std::string& run_id) const {
  const auto all = runs();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].run_id == run_id) return i + 1 < all.size() ? load_run(all[i + 1].run_id) : std::nullopt;
  return std::nullopt;
}

std::vector<std::string> History::scenario_ids(const std::string& matrix) const { return store_->scenario_ids(matrix); }

std::vector<TrendPoint> History::trend(const std::string& scenario_id, int limit) const {
  return store_->trend(scenario_id, limit);
}

void History::export_runs(std::ostream& out) const {
  out << nlohmann::json{{"kind", "trainbench-history-export"}, {"version", 1}}.dump() << '\n';
  store_->each_run([&out](const std::string& results_path, const std::string& results_json) {
    out << "{\"results_path\":" << nlohmann::json(results_path).dump() << ",\"results\":" << results_json << "}\n";
  });
}

std::size_t History::import_runs(std::istream& in, const std::string& source) {
  std::vector<std::pair<RunResult, std::string>> runs;
  std::string line;
  std::size_t number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(number);
    const auto j = nlohmann::json::parse(line, nullptr, false);
    TB_CHECK_INPUT(!j.is_discarded() && j.is_object(), source, where, "not a JSON object");
    if (!header) {
      TB_CHECK_INPUT(j.value("kind", "") == "trainbench-history-export", source, where,
                     "not a trainbench history export (its first line says {\"kind\": "
                     "\"trainbench-history-export\"}; write one with history --export)");
      TB_CHECK_INPUT(j.value("version", 0) == 1, source, where, "export version ", j.value("version", 0),
                     " is not known to this trainbench (1 is)");
      header = true;
      continue;
    }
    TB_CHECK_INPUT(j.contains("results") && j["results"].is_object(), source, where, "no results object");
    try {
      runs.emplace_back(j["results"].get<RunResult>(), j.value("results_path", std::string()));
    } catch (const std::exception& e) { throw InputError(source, where + ".results", e.what()); }
    TB_CHECK_INPUT(!runs.back().first.run_id.empty(), source, where, "the run has no run_id");
  }
  TB_CHECK_INPUT(header, source, "", "empty: not a trainbench history export");
  for (const auto& [run, results_path] : runs) record(run, results_path);
  return runs.size();
}

}  // namespace tb
