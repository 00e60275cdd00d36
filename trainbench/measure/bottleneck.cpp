#include <trainbench/measure/bottleneck.hpp>

#include <cmath>
#include <optional>

namespace tb {

namespace {

double share_of(const ScenarioResult& s, const char* phase) {
  for (const auto& p : s.phases)
    if (p.name == phase) return p.share;
  return 0;
}

std::string pct(double share) { return std::to_string(static_cast<int>(std::lround(share * 100))) + "%"; }

// The GPU's idle share over the profiled window (profile_summary.hpp), when CUPTI ran.
std::optional<double> gpu_idle_share(const ScenarioResult& s) {
  if (!s.profile || !s.profile->cupti.is_object()) return std::nullopt;
  const auto it = s.profile->cupti.find("gpu_idle_share");
  if (it == s.profile->cupti.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

const char* to_string(Bottleneck::Kind k) {
  switch (k) {
    case Bottleneck::Kind::communication: return "communication-bound";
    case Bottleneck::Kind::data: return "data-bound";
    case Bottleneck::Kind::copy: return "copy-bound";
    case Bottleneck::Kind::host_launch: return "host/launch-bound";
    case Bottleneck::Kind::compute: return "compute-bound";
    case Bottleneck::Kind::none: break;
  }
  return "-";
}

Bottleneck bottleneck_of(const ScenarioResult& s) {
  if (s.phases.empty()) return {};
  const double comm = share_of(s, "comm"), data = share_of(s, "data_wait"), copy = share_of(s, "h2d");
  if (comm >= kCommBoundShare)
    return {Bottleneck::Kind::communication, "exposed all-reduce " + pct(comm) + " of the step"};
  if (data >= kDataBoundShare) return {Bottleneck::Kind::data, "data wait " + pct(data) + " of the step"};
  if (copy >= kCopyBoundShare) return {Bottleneck::Kind::copy, "host-to-device copies " + pct(copy) + " of the step"};
  const auto idle = gpu_idle_share(s);
  if (idle && *idle >= kLaunchBoundIdleShare)
    return {Bottleneck::Kind::host_launch, "GPU idle " + pct(*idle) + " of the profiled steps"};
  const double compute = share_of(s, "forward") + share_of(s, "backward") + share_of(s, "optimizer");
  std::string reason = "forward+backward+optimizer " + pct(compute) + " of the step";
  if (idle) reason += ", GPU idle " + pct(*idle);
  return {Bottleneck::Kind::compute, reason, !idle && s.params.device == DeviceKind::cuda};
}

}  // namespace tb
