// The profiling window's memory timeline (extra.profile.memory_timeline, written by the profile
// pass from measure/memory_timeline.hpp) as the reports show it: one line for Markdown and the
// console, one chart's data for the HTML report.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <trainbench/results/results.hpp>

namespace tb::report {

// "peak 1.2 GiB RSS at 35.0 ms of the 120.0 ms window (start 812.0 MiB, end 815.0 MiB; 121
// readings, one every 1 ms)"; "" when the scenario has no timeline (not profiled, or results
// from before it was recorded).
std::string memory_timeline_summary(const ScenarioResult& s);

// One line chart, every profiled scenario a line of MiB against ms since its window started:
// {"id":"memory-timeline","kind":"memory","title","x_title","y_title",
//  "datasets":[{"label": scenario id, "source": "rss"|"cuda_allocated", "peak_mib",
//               "data":[{"x": ms, "y": MiB}, ...]}]};
// nullopt when no scenario has a timeline.
std::optional<nlohmann::json> memory_timeline_chart(const RunResult& run);

}  // namespace tb::report
