#include <trainbench/measure/torch/step_timer.hpp>

#include <stdexcept>
#include <vector>

#include <ATen/DeviceAccelerator.h>
#include <c10/core/Event.h>

#include <trainbench/profiling/host_recorder.hpp>

namespace tb {

namespace {

using profiling::now_ns;

// Records each phase as a host span when a profiling pass has a recorder active.
class HostTimer final : public StepTimer {
 public:
  void start_step() override {
    recorder_ = profiling::active_recorder();
    start_ns_ = last_ns_ = now_ns();
    phase_ns_.fill(0);
  }
  void end_phase(Phase p) override {
    const auto t = now_ns();
    phase_ns_[static_cast<int>(p)] += t - last_ns_;
    if (recorder_ != nullptr) recorder_->record_span(to_string(p), profiling::kCategoryPhase, last_ns_, t, step_index_);
    last_ns_ = t;
  }
  void finish_step(StepSample& out) override {
    const auto t = now_ns();
    if (recorder_ != nullptr) recorder_->record_span("step", profiling::kCategoryStep, start_ns_, t, step_index_);
    ++step_index_;
    out.step_s = static_cast<double>(t - start_ns_) * 1e-9;
    for (std::size_t i = 0; i < kPhaseCount; ++i) out.phase_s[i] = static_cast<double>(phase_ns_[i]) * 1e-9;
  }

 private:
  profiling::HostRecorder* recorder_ = nullptr;
  std::int64_t start_ns_ = 0, last_ns_ = 0, step_index_ = 0;
  std::array<std::int64_t, kPhaseCount> phase_ns_{};
};

// CUDA events at every boundary; data_wait from the host clock.
class DeviceEventTimer final : public StepTimer {
 public:
  DeviceEventTimer(c10::Device device, int max_marks) : device_(device) {
    events_.reserve(static_cast<std::size_t>(max_marks) + 1);
    for (int i = 0; i <= max_marks; ++i) events_.emplace_back(device.type(), c10::EventFlag::BACKEND_DEFAULT);
    phases_.resize(events_.size());
  }
  void start_step() override {
    host_.start_step();
    used_ = 0;
    record(Phase::data_wait);  // slot 0: the step's start (its phase tag is unused)
  }
  void end_phase(Phase p) override {
    host_.end_phase(p);
    record(p);
  }
  void finish_step(StepSample& out) override {
    events_[used_ - 1].synchronize();
    StepSample host;
    host_.finish_step(host);
    out.phase_s.fill(0);
    for (std::size_t i = 1; i < used_; ++i) {
      const double ms = events_[i - 1].elapsedTime(events_[i]);
      out.phase_s[static_cast<int>(phases_[i])] += ms * 1e-3;
    }
    // Data wait is the time the host blocked on the loader, not a stream interval.
    out.phase_s[static_cast<int>(Phase::data_wait)] = host.phase_s[static_cast<int>(Phase::data_wait)];
    out.step_s = events_[0].elapsedTime(events_[used_ - 1]) * 1e-3;
  }

 private:
  void record(Phase p) {
    // More boundaries than the step's structure has: a bug, never a silently coarser timing.
    if (used_ >= events_.size()) throw std::logic_error("step timer: more phase boundaries than boundaries_per_step()");
    events_[used_].record(at::accelerator::getCurrentStream(device_.index()));
    phases_[used_] = p;
    ++used_;
  }
  c10::Device device_;
  HostTimer host_;
  std::vector<c10::Event> events_;
  std::vector<Phase> phases_;
  std::size_t used_ = 0;
};

}  // namespace

std::unique_ptr<StepTimer> StepTimer::create(c10::Device device, int max_marks) {
  if (device.is_cpu()) return std::make_unique<HostTimer>();
  return std::make_unique<DeviceEventTimer>(device, max_marks);
}

}  // namespace tb
