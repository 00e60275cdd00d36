#include <trainbench/capacity/torch/utilization_pass.hpp>

#include <cmath>
#include <map>
#include <ostream>

#include <trainbench/capacity/flops.hpp>
#include <trainbench/capacity/projection.hpp>
#include <trainbench/capacity/torch/peak_flops.hpp>
#include <trainbench/capacity/utilization.hpp>
#include <trainbench/measure/precision_support.hpp>
#include <trainbench/support/error.hpp>

namespace tb {

namespace {

struct MeasuredPeak {
  std::optional<double> flops_per_s;
  double fastest_flops_per_s = 0;
  std::string detail;
};

std::string gpu_name(const RunResult& run) {
  const auto& gpus = run.environment.value("gpu", nlohmann::json::array());
  return gpus.empty() ? std::string() : gpus.front().value("name", "");
}

// The devices a scenario's throughput came from: its ranks on CUDA; on the CPU its nodes (the
// ranks of one node share its cores, and the peak was measured with all of them).
int devices_used(const RunResult& run, const ScenarioParams& p) {
  if (p.world_size <= 1) return 1;
  if (p.device == DeviceKind::cuda) return p.world_size;
  const int per_node = run.provenance.ranks ? run.provenance.ranks->local_world_size : 1;
  return std::max(1, (p.world_size + std::max(1, per_node) - 1) / std::max(1, per_node));
}

// The scenario's measured energy per step (energy_result.hpp), when available.
std::optional<double> measured_joules_per_step(const ScenarioResult& s) {
  if (!s.energy || !s.energy->available || !(s.energy->joules_per_step > 0)) return std::nullopt;
  return s.energy->joules_per_step;
}

// Why an MFU above 100% is likely, where the run knows more than "a busy machine": a reduced
// type the hardware emulates runs at a speed that depends on the shapes and kernels, so the
// probe's n x n Linear and the step's layers may differ by more than the peak can cover.
std::string mfu_suspect(const RunResult& run, const ScenarioParams& p) {
  const auto path =
      recorded_precision_path(run.environment, to_string(p.device), definition(p.precision).reduced_dtype);
  if (!path || path->native) return "";
  return "the peak probe and the training step ran different kernels: " + path->detail +
         ", whose speed depends on the shapes, and the step's ran faster than the probe's";
}

}  // namespace

namespace {

// Above this (max - min) / median of the peak's timed blocks the peak is flagged as noisy.
constexpr double kNoisyPeakSpread = 0.25;

void add_utilization_or_throw(RunResult& run, const MatrixSpec& spec, RunListener* listener) {
  const nlohmann::json cap = spec.capacity.is_object() ? spec.capacity : nlohmann::json::object();
  const bool measure = cap.value("measure_peak", true);
  std::optional<capacity::TargetSpec> target;
  if (cap.contains("target")) {
    const auto& t = cap.at("target");
    target = capacity::parse_target(t.is_string() ? t.get<std::string>() : t.dump(), "capacity.target");
  }
  capacity::ProjectionOptions projection_options;
  projection_options.num_devices = cap.value("devices", 1);
  if (cap.contains("price_per_device_hour"))
    projection_options.price_per_device_hour = cap.at("price_per_device_hour").get<double>();
  if (cap.contains("avg_power_watts")) projection_options.avg_power_watts = cap.at("avg_power_watts").get<double>();
  if (cap.contains("price_per_kwh")) projection_options.price_per_kwh = cap.at("price_per_kwh").get<double>();

  std::map<std::pair<DeviceKind, Precision>, MeasuredPeak> peaks;
  run.peaks.emplace();
  for (auto& s : run.scenarios) {
    if (s.status != ScenarioStatus::ok || !s.flops_per_sample) continue;
    const capacity::FlopCount per_sample = *s.flops_per_sample;
    const auto key = std::make_pair(s.params.device, s.params.precision);
    if (!peaks.count(key)) {
      MeasuredPeak m;
      if (measure) {
        try {  // measured once per device and precision, outside every timed region
          const auto peak = capacity::measure_matmul_peak(s.params.device, s.params.precision);
          m.flops_per_s = peak.flops_per_s;
          m.fastest_flops_per_s = peak.max_flops_per_s;
          m.detail = capacity::describe(peak);
          if (listener) {
            listener->message("  peak " + std::string(to_string(s.params.precision)) + " on " +
                              to_string(s.params.device) + ": " + std::to_string(std::lround(peak.flops_per_s / 1e9)) +
                              " GFLOP/s, " + m.detail + "\n");
            if (peak.rel_spread > kNoisyPeakSpread)
              listener->warning("the " + std::string(to_string(s.params.precision)) + " matmul peak's blocks spread " +
                                std::to_string(std::lround(peak.rel_spread * 100)) +
                                "% (a busy machine?); MFU against it is uncertain");
          }
          run.peaks->push_back({to_string(s.params.device), to_string(s.params.precision), peak});
        } catch (const std::exception& e) { m.detail = e.what(); }
      }
      peaks[key] = m;
    }
    const auto& m = peaks[key];
    auto peak = capacity::choose_peak(m.flops_per_s, gpu_name(run), s.params.precision, m.detail);
    if (peak && peak->source == capacity::kPeakSourceMeasured) peak->fastest_flops_per_s = m.fastest_flops_per_s;
    // A data-parallel scenario's throughput is every rank's: against the peak of every device it
    // ran on (one GPU per rank; CPU ranks share their node's cores, so one peak per node).
    const int devices = devices_used(run, s.params);
    if (peak && devices > 1) {
      peak->flops_per_s *= devices;
      peak->fastest_flops_per_s *= devices;
      peak->detail += " x " + std::to_string(devices) + " devices";
    }
    std::optional<capacity::Projection> projection;
    if (target) {
      // A rank's dataset is its shard.
      const auto dataset_size = (s.dataset ? s.dataset->samples : 0) * s.params.world_size;
      const double tokens = s.samples_per_s > 0 ? s.tokens_per_s / s.samples_per_s : 0;
      const double samples = capacity::target_samples(*target, tokens, dataset_size, "capacity.target");
      auto options = projection_options;
      options.num_devices = std::max(options.num_devices, devices);
      options.joules_per_step = measured_joules_per_step(s);
      projection = capacity::project(samples, s.step_time_s, static_cast<int>(global_batch(s.params)), options);
    }
    s.capacity = capacity::capacity_section(per_sample, s.samples_per_s, peak, projection, mfu_suspect(run, s.params));
    if (listener && !s.capacity->mfu_error.empty()) listener->error(s.id + ": " + s.capacity->mfu_error);
  }
}

}  // namespace

void add_utilization(RunResult& run, const MatrixSpec& spec, RunListener* listener) {
  if (listener) listener->message("measuring matmul peaks for utilization ...\n");
  try {
    add_utilization_or_throw(run, spec, listener);
  } catch (const std::exception& e) {
    if (listener) listener->warning(std::string("utilization: ") + e.what());
  }
}

}  // namespace tb
