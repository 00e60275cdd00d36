// The profiling pass: a bounded window of extra training steps run after the timed steps, with
// the host-span recorder (and CUPTI on a GPU) writing a Chrome trace, and/or LibTorch's Kineto
// profiler writing its op-level trace (steps as "ProfilerStep#N", phases nested in them:
// trace_ranges.hpp). Never the same steps as the timing figures.
#pragma once
#include <optional>
#include <string>

#include <c10/core/Device.h>
#include <trainbench/results/sections.hpp>

#include <trainbench/matrix/scenario.hpp>
#include <trainbench/profiling/host_recorder.hpp>

namespace tb {

class Trainer;

class ProfilePass {
 public:
  // `override_enabled`: the command line's --profile / --no-profile. `rank` >= 0: one rank of a
  // data-parallel scenario, whose traces are named "<scenario>_rank<r>" (every rank writes its own).
  ProfilePass(const ScenarioParams& params, std::optional<bool> override_enabled, int rank = -1);
  bool gzip() const { return options_.gzip; }
  bool enabled() const { return options_.enabled; }

  // Runs the window and writes DIR/traces/<scenario>.host.json[.gz] and/or
  // <scenario>.pt.trace.json (profiling::trace_file_name); returns the scenario's profile section.
  // Host recorder and Kineto, when both on, record the same steps, and the host trace is written
  // in the Kineto trace's time base (ChromeTraceLogger's TraceTimeBase).
  ProfileSection run(Trainer& trainer, c10::Device device, const std::string& out_dir);

 private:
  ProfileOptions options_;
  int rank_ = -1;
  int world_size_ = 1;
  std::string scenario_;
  // Created up front so it outlives the data loader's worker threads, which record spans.
  std::optional<profiling::HostRecorder> recorder_;
};

}  // namespace tb
