// Data-parallel profiling: every rank writes its own host trace (chrome_trace_logger.hpp); this
// folds them into one Chrome trace with a process per rank ("rank 1: Host (trainbench)"), so
// Perfetto shows the ranks one above the other. Ranks on one machine share its monotonic clock
// and are aligned on it; when the traces come from different hosts each keeps its own zero
// (otherData.aligned says which).
#pragma once
#include <string>
#include <vector>

namespace tb::profiling {

struct RankTrace {
  int rank = 0;
  std::string host;
  std::string path;  // an uncompressed trace written by write_chrome_trace
};

// Writes the merged trace to `out_path` (durably). InputError naming the file when a rank's trace
// is missing or not a trainbench trace; OutputError when the result cannot be written.
void merge_rank_traces(const std::vector<RankTrace>& traces, const std::string& scenario, const std::string& out_path);

}  // namespace tb::profiling
