// results.json files of earlier schema versions, read as the current one: every reader
// (load_results, the history, merge and compare) sees one layout. Each step rewrites a file of
// version n as version n + 1 would have written it; nothing is lost, as no version dropped a
// field.
//   1 -> 2: run extra.{shard, resume, ab_session, merge, ranks, isolated} move to the run's
//           "provenance"; scenario extra.{shard, measured_in_resume} to the scenario's.
#pragma once
#include <nlohmann/json.hpp>

namespace tb {

inline constexpr int kOldestResultsSchemaVersion = 1;

// `run` (a whole results.json of version `from`, kOldestResultsSchemaVersion <= from <= the
// current) in the current layout, schema_version included. Parts that are not what the old
// version wrote (a scenario that is not an object) are left for the reader to refuse by name.
nlohmann::json upgraded_results(nlohmann::json run, int from);

}  // namespace tb
