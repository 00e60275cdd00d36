#include <trainbench/profiling/profile_summary.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

namespace tb::profiling {
namespace {

constexpr double kNsToS = 1e-9;

int phase_index(const char* name) {
  for (std::size_t i = 0; i < kPhaseCount; ++i)
    if (std::strcmp(name, kPhaseNames[i]) == 0) return static_cast<int>(i);
  return -1;
}

// Start time of the API call behind each correlation id (runtime calls win over driver calls,
// since the runtime call encloses the driver call it makes).
std::unordered_map<std::uint32_t, std::int64_t> launch_times(const std::vector<RuntimeCall>& calls) {
  std::unordered_map<std::uint32_t, std::int64_t> out;
  for (const auto& c : calls) {
    if (c.correlation_id == 0) continue;
    auto [it, inserted] = out.emplace(c.correlation_id, c.start_ns);
    if (!inserted && !c.is_driver) it->second = c.start_ns;
  }
  return out;
}

struct PhaseSpan {
  std::int64_t begin, end;
  int phase;
};

// Innermost phase span containing t (spans sorted by begin), or -1.
int phase_at(const std::vector<PhaseSpan>& spans, std::int64_t t) {
  auto it =
      std::upper_bound(spans.begin(), spans.end(), t, [](std::int64_t v, const PhaseSpan& s) { return v < s.begin; });
  // Phases rarely nest, so a few steps back find the enclosing span if the latest one ended.
  for (int scanned = 0; it != spans.begin() && scanned < 8; ++scanned) {
    --it;
    if (t <= it->end) return it->phase;
  }
  return -1;
}

}  // namespace

std::int64_t union_length_ns(std::vector<std::pair<std::int64_t, std::int64_t>> intervals, std::int64_t lo,
                             std::int64_t hi) {
  for (auto& [b, e] : intervals) {
    b = std::max(b, lo);
    e = std::min(e, hi);
  }
  std::erase_if(intervals, [](const auto& iv) { return iv.second <= iv.first; });
  std::sort(intervals.begin(), intervals.end());
  std::int64_t total = 0;
  std::int64_t cur_b = 0, cur_e = std::numeric_limits<std::int64_t>::min();
  for (const auto& [b, e] : intervals) {
    if (b > cur_e) {
      if (cur_e > cur_b) total += cur_e - cur_b;
      cur_b = b;
      cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (cur_e > cur_b) total += cur_e - cur_b;
  return total;
}

ProfileSummary summarize(const DecodedRecords& records, const std::vector<HostSpan>& host_spans, std::size_t top_n) {
  ProfileSummary s;
  for (std::size_t i = 0; i < kPhaseCount; ++i) s.phases[i].name = kPhaseNames[i];
  s.dropped_records = records.dropped_records;
  s.api_call_count = records.calls.size();

  std::vector<std::pair<std::int64_t, std::int64_t>> busy;
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
  for (const auto& a : records.activities) {
    if (a.kind == GpuActivityKind::overhead && a.end_ns > a.start_ns)
      s.overhead_s += static_cast<double>(a.end_ns - a.start_ns) * kNsToS;
    if (!is_device_work(a)) continue;
    busy.emplace_back(a.start_ns, a.end_ns);
    first = std::min(first, a.start_ns);
    last = std::max(last, a.end_ns);
  }

  // Per-step busy / idle over the host step spans.
  std::vector<PhaseSpan> phase_spans;
  for (const auto& span : host_spans) {
    if (std::strcmp(span.category, kCategoryStep) == 0) {
      StepGpuStat st;
      st.step = span.step;
      st.wall_s = static_cast<double>(span.end_ns - span.begin_ns) * kNsToS;
      st.gpu_busy_s = static_cast<double>(union_length_ns(busy, span.begin_ns, span.end_ns)) * kNsToS;
      st.idle_share = st.wall_s > 0 ? 1.0 - st.gpu_busy_s / st.wall_s : 0.0;
      s.window_s += st.wall_s;
      s.gpu_busy_s += st.gpu_busy_s;
      s.steps.push_back(st);
    } else if (std::strcmp(span.category, kCategoryPhase) == 0) {
      const int p = phase_index(span.name);
      if (p >= 0) phase_spans.push_back({span.begin_ns, span.end_ns, p});
    }
  }
  // Steps recorded without an index are numbered in recording order.
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].step < 0) s.steps[i].step = static_cast<std::int64_t>(i);
  std::stable_sort(s.steps.begin(), s.steps.end(),
                   [](const StepGpuStat& a, const StepGpuStat& b) { return a.step < b.step; });
  if (s.steps.empty() && !busy.empty()) {
    s.window_s = static_cast<double>(last - first) * kNsToS;
    s.gpu_busy_s = static_cast<double>(union_length_ns(busy, first, last)) * kNsToS;
  }
  s.gpu_idle_share = s.window_s > 0 ? 1.0 - s.gpu_busy_s / s.window_s : 0.0;

  // Attribution to phases, kernel and copy tables.
  std::sort(phase_spans.begin(), phase_spans.end(),
            [](const PhaseSpan& a, const PhaseSpan& b) { return a.begin < b.begin; });
  const auto launches = launch_times(records.calls);
  std::map<std::string, KernelStat> kernels;
  std::map<CopyKind, CopyStat> copies;
  double kernel_total_s = 0;
  for (const auto& a : records.activities) {
    if (!is_device_work(a)) continue;
    const double dur_s = static_cast<double>(std::max<std::int64_t>(0, a.end_ns - a.start_ns)) * kNsToS;
    auto launch = launches.find(a.correlation_id);
    if (launch == launches.end() && a.runtime_correlation_id != 0) launch = launches.find(a.runtime_correlation_id);
    const int p = launch == launches.end() ? -1 : phase_at(phase_spans, launch->second);
    if (p < 0) {
      s.unattributed_s += dur_s;
    } else if (a.kind == GpuActivityKind::kernel) {
      s.phases[p].kernel_s += dur_s;
      ++s.phases[p].kernels;
    } else if (a.kind == GpuActivityKind::memcpy) {
      s.phases[p].memcpy_s += dur_s;
    } else {
      s.phases[p].memset_s += dur_s;
    }

    if (a.kind == GpuActivityKind::kernel) {
      auto& k = kernels[a.name];
      k.name = a.name;
      ++k.count;
      k.total_s += dur_s;
      kernel_total_s += dur_s;
      ++s.kernel_count;
    } else if (a.kind == GpuActivityKind::memcpy) {
      auto& c = copies[a.copy_kind];
      c.direction = a.copy_kind;
      ++c.count;
      c.bytes += a.bytes;
      c.total_s += dur_s;
    }
  }
  for (auto& [name, k] : kernels) {
    k.mean_s = k.total_s / static_cast<double>(k.count);
    k.share = kernel_total_s > 0 ? k.total_s / kernel_total_s : 0.0;
    s.top_kernels.push_back(k);
  }
  std::sort(s.top_kernels.begin(), s.top_kernels.end(), [](const KernelStat& a, const KernelStat& b) {
    return a.total_s != b.total_s ? a.total_s > b.total_s : a.name < b.name;
  });
  if (s.top_kernels.size() > top_n) s.top_kernels.resize(top_n);
  for (auto& [dir, c] : copies) {
    c.bandwidth_gb_s = c.total_s > 0 ? static_cast<double>(c.bytes) / c.total_s / 1e9 : 0.0;
    s.copies.push_back(c);
  }
  return s;
}

nlohmann::json to_json(const ProfileSummary& s) {
  nlohmann::json j;
  j["window_s"] = s.window_s;
  j["gpu_busy_s"] = s.gpu_busy_s;
  j["gpu_idle_share"] = s.gpu_idle_share;
  j["steps"] = nlohmann::json::array();
  for (const auto& st : s.steps)
    j["steps"].push_back(
        {{"step", st.step}, {"wall_s", st.wall_s}, {"gpu_busy_s", st.gpu_busy_s}, {"idle_share", st.idle_share}});
  j["phases"] = nlohmann::json::array();
  for (const auto& p : s.phases)
    j["phases"].push_back({{"name", p.name},
                           {"kernel_s", p.kernel_s},
                           {"memcpy_s", p.memcpy_s},
                           {"memset_s", p.memset_s},
                           {"kernels", p.kernels}});
  j["unattributed_s"] = s.unattributed_s;
  j["top_kernels"] = nlohmann::json::array();
  for (const auto& k : s.top_kernels)
    j["top_kernels"].push_back(
        {{"name", k.name}, {"count", k.count}, {"total_s", k.total_s}, {"mean_s", k.mean_s}, {"share", k.share}});
  j["copies"] = nlohmann::json::array();
  for (const auto& c : s.copies)
    j["copies"].push_back({{"direction", to_string(c.direction)},
                           {"count", c.count},
                           {"bytes", c.bytes},
                           {"total_s", c.total_s},
                           {"bandwidth_gb_s", c.bandwidth_gb_s}});
  j["overhead_s"] = s.overhead_s;
  j["dropped_records"] = s.dropped_records;
  j["kernel_count"] = s.kernel_count;
  j["api_call_count"] = s.api_call_count;
  return j;
}

}  // namespace tb::profiling
