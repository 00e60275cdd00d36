// The profiling pass: a bounded window of extra training steps run after the timed steps, with
// the host-span recorder (and CUPTI on a GPU) writing a Chrome trace, or LibTorch's Kineto
// profiler writing its op-level trace. Never the same steps as the timing figures.
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

  // Runs the window(s) and writes DIR/traces/<scenario>.host.json[.gz] and/or
  // <scenario>.kineto.json (profiling::trace_file_name); returns the scenario's profile section.
  ProfileSection run(Trainer& trainer, c10::Device device, const std::string& out_dir);

 private:
  ProfileOptions options_;
  std::string scenario_;
  // Created up front so it outlives the data loader's worker threads, which record spans.
  std::optional<profiling::HostRecorder> recorder_;
};

}  // namespace tb
