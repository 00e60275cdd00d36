// The data-parallel and scaling tables (per-scenario throughput and communication, the per-rank
// straggler view, the projection and its check against measured sizes) as plain-text cells,
// shared by the console, Markdown and HTML reporters so all show the same numbers.
#pragma once
#include <string>
#include <vector>

#include <trainbench/results/results.hpp>
#include <trainbench/support/text_table.hpp>

namespace tb::report {

// One row per ok scenario with extra.data_parallel: global and per-rank samples/s, scaling
// efficiency, exposed vs overlapped communication, the on-the-spot all-reduce and its bus
// bandwidth.
TextTable data_parallel_table(const RunResult& run);
// One row per rank of every ok data-parallel scenario: its step, samples/s, compute before the
// collective and how much slower that compute was than the fastest rank's (the straggler view).
TextTable rank_table(const RunResult& run);
// The series' projection, one row per world size, every figure a model's.
TextTable projection_table(const ScalingModelSection& model);
// The projection against each measured size > 1 it could be checked on.
TextTable projection_check_table(const ScalingModelSection& model);
// A heading for the series, e.g. "mlp/fp32/w0/a1/b32 (weak scaling)".
std::string series_heading(const ScalingSeries& series);
// What a reader needs beside the series' tables: its reference, DDP's own overhead, where the
// model's bandwidth came from, its assumptions and limits, and any note; one line each.
std::vector<std::string> series_notes(const ScalingSeries& series);

}  // namespace tb::report
